/**
 * Row 15 of issue 11: the standalone server's own log reaches stdout promptly
 * (no 8 KiB buffer): the `listening` line and each request's line can be read
 * from a running process, and what was written survives kill -9.
 */
import { afterAll, expect, it } from 'vitest';
import { join } from 'node:path';
import { createKey } from '../../src/keys/manage.js';
import { resolvePlans } from '../../src/plans.js';
import { openStore } from '../../src/store/open.js';
import { exited, startChild, until } from '../support/children.js';
import { writeSnapshot } from '../support/fixtures.js';
import { TEST_PLANS, tempDir } from '../support/harness.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const lines = (text: string): Record<string, unknown>[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

it('writes the listening line and every request line while the process runs, and keeps them after kill -9', async () => {
  const spec = `sqlite:${join(tmp.dir, 'store.sqlite')}`;
  const child = await startChild(writeSnapshot(tmp.dir, 'a'), spec, TEST_PLANS, { options: { defaultLogger: true }, pipeStdout: true });
  try {
    await until(() => lines(child.stdout.text).some((l) => l['msg'] === 'listening'), 'the listening line on stdout');
    const store = await openStore(spec);
    const { key } = await createKey(store, { plan: 'test', plans: resolvePlans(TEST_PLANS), now: 0 });
    await store.close();
    for (let i = 0; i < 3; i++) expect((await fetch(`${child.url}/v1/check?ip=8.8.8.8`, { headers: { 'x-api-key': key } })).status).toBe(200);
    await until(() => lines(child.stdout.text).filter((l) => l['msg'] === 'request').length === 3, 'three request lines on stdout');
    child.process.kill('SIGKILL');
    await exited(child.process);
    const after = lines(child.stdout.text);
    expect(after.filter((l) => l['msg'] === 'request' && l['status'] === 200)).toHaveLength(3);
  } finally {
    await child.stop();
  }
});
