/**
 * The snapshot holder's reloads racing each other: a reload asked for while
 * another check runs is not lost, and `reload()` resolves only once a check
 * that started after the call is done (so the file on disk at the call is
 * the one in service, or was refused, when it resolves). /healthz describes
 * one snapshot even when a swap happens while it waits for the store.
 */
import { readFileSync } from 'node:fs';
import type { IpIntel } from '@ipintel/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { SnapshotHolder, type SnapshotEvents } from '../src/snapshot/holder.js';
import { openSqliteStore } from '../src/store/sqlite.js';
import type { Store } from '../src/store/types.js';
import { writeSnapshot } from './support/fixtures.js';
import { call, tempDir } from './support/harness.js';

const events: SnapshotEvents = { loaded: () => {}, refused: () => {}, missing: () => {} };

/**
 * A loader whose "snapshot" is the file's text; each load waits for `release()` while `held`.
 * `holding()` resolves once a load has read its file and waits (the test's cue, instead of a fixed wait).
 */
function gatedLoader(): { load: (path: string) => Promise<IpIntel>; loads: number; held: boolean; release: () => void; holding: () => Promise<void> } {
  let waiting: (() => void)[] = [];
  let cues: (() => void)[] = [];
  const l = {
    loads: 0,
    held: false,
    load: async (path: string): Promise<IpIntel> => {
      l.loads++;
      const text = readFileSync(path, 'latin1');
      if (l.held) {
        const released = new Promise<void>((r) => waiting.push(r));
        for (const cue of cues) cue();
        cues = [];
        await released;
      }
      return { info: { build_date: text } } as unknown as IpIntel;
    },
    holding: (): Promise<void> => (waiting.length > 0 ? Promise.resolve() : new Promise<void>((r) => cues.push(r))),
    release: () => {
      l.held = false;
      for (const r of waiting) r();
      waiting = [];
    },
  };
  return l;
}

const served = (h: SnapshotHolder): string => h.current!.info.build_date;

describe('snapshot holder', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('reload() called during another reload resolves only after the file on disk at the call is loaded', async () => {
    const path = writeSnapshot(tmp.dir, new TextEncoder().encode('A'), 'race1.ipintel');
    const loader = gatedLoader();
    const h = new SnapshotHolder(path, { load: loader.load, events, watch: false });
    await h.start();
    expect(served(h)).toBe('A');
    loader.held = true;
    const first = h.reload(); // SIGHUP: reads A again, slowly
    await loader.holding(); // it has read A
    writeSnapshot(tmp.dir, new TextEncoder().encode('B'), 'race1.ipintel');
    const second = h.reload(); // the operator replaced the file and reloads
    loader.release();
    await first;
    await second;
    expect(served(h)).toBe('B');
    h.close();
  });

  it('a forced reload asked for while an ordinary check runs is still forced', async () => {
    const path = writeSnapshot(tmp.dir, new TextEncoder().encode('A'), 'race2.ipintel');
    const loader = gatedLoader();
    const h = new SnapshotHolder(path, { load: loader.load, events, watch: false });
    await h.start();
    loader.held = true;
    // An ordinary check (a poll or a watch event) of a changed file runs...
    writeSnapshot(tmp.dir, new TextEncoder().encode('B'), 'race2.ipintel');
    const poll = (h as unknown as { check(force: boolean): Promise<void> }).check(false);
    // Once it is loading (after 20 ms of real time it might still be at its stat: then it ran after the release and loaded twice).
    await loader.holding();
    // ...when SIGHUP asks for a reload of the file as it is: it must load it again after the check.
    const before = loader.loads;
    const forced = h.reload();
    loader.release();
    await poll;
    await forced;
    expect(loader.loads).toBe(before + 1);
    expect(served(h)).toBe('B');
    h.close();
  });
});

describe('GET /healthz during a swap', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('describes one snapshot: build_date and loaded_at are never from two', async () => {
    const path = writeSnapshot(tmp.dir, 'a');
    const inner = openSqliteStore(':memory:');
    // A store whose ping is slow: the snapshot is swapped while /healthz waits for it.
    let pinged: () => void = () => {};
    const pinging = new Promise<void>((r) => (pinged = r));
    const store: Store = { ...inner, ping: async () => (pinged(), await new Promise((r) => setTimeout(r, 100))) };
    const app = createApp({ snapshot: path, store, logger: false, watch: false });
    await app.ready;
    const loadedA = new Date(app.snapshot.loadedAt!).toISOString();
    await new Promise((r) => setTimeout(r, 5));
    const health = call(app, '/healthz');
    await pinging;
    writeSnapshot(tmp.dir, 'b');
    await app.reloadSnapshot();
    expect(app.snapshot.current!.info.build_date).toBe('2026-01-02T00:00:00.000Z');
    const { snapshot } = (await health).json as { snapshot: { build_date: string; loaded_at: string } };
    expect(snapshot).toMatchObject({ build_date: '2026-01-01T00:00:00.000Z', loaded_at: loadedA });
    await app.close();
    await inner.close();
  });
});
