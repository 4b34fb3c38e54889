/**
 * docs/cli.md lists the CSV columns in order for both formats; people read
 * CSV by position, so the lists must be the header the batch writes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runBatch } from './io.js';
import { trickyModel, writeSnapshot } from './snapshots.js';

const doc = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');

/** The comma-separated names in the first code block after `heading`. */
function listedAfter(heading: string): string[] {
  const at = doc.indexOf(heading);
  expect(at, `docs/cli.md has "${heading}"`).toBeGreaterThan(-1);
  const block = /```\n([\s\S]*?)```/.exec(doc.slice(at))![1]!;
  return block.split(/[,\s]+/).filter((n) => n !== '');
}

describe('docs/cli.md CSV columns', () => {
  const snap = writeSnapshot(trickyModel());
  for (const [format, heading] of [
    ['native', 'Native columns, in CSV order:'],
    ['thirdparty', '`--format thirdparty` columns:'],
  ] as const) {
    it(`lists the ${format} header in order`, async () => {
      const r = await runBatch(snap, '', ['--output', 'csv', '--format', format]);
      expect(r.code).toBe(0);
      expect(listedAfter(heading)).toEqual(r.out.split('\n')[0]!.split(','));
    });
  }
});
