/**
 * The set-up the batch test files share: the tricky model's snapshot,
 * written and opened once per file, and the batch's test hooks cleared after
 * every test (a test that sets one must not leak it into the next).
 */
import { afterEach, beforeAll } from 'vitest';
import { openSync, type IpIntel } from '@ipintel/core';
import { batchHooks } from '../src/commands/batch.js';
import { trickyModel, writeSnapshot } from './snapshots.js';

/** Registers the set-up with the calling file; `ready` hears the snapshot's path and the opened snapshot. */
export function withTrickySnapshot(ready: (path: string, intel: IpIntel) => void): void {
  beforeAll(() => {
    const path = writeSnapshot(trickyModel());
    ready(path, openSync(path));
  });
  afterEach(() => {
    for (const k of Object.keys(batchHooks) as (keyof typeof batchHooks)[]) delete batchHooks[k];
  });
}
