import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { IpIntelError, fromShared, loadSnapshot } from '../src/portable.js';
import { encodeSnapshot } from '../src/writer.js';
import { modelFromPrefixes, stoppedClock } from '@ipintel/testkit';

// The original and its copies run on one stopped clock: their answers carry allocation_age_days, which follows the UTC day.
const intel = loadSnapshot(
  encodeSnapshot(modelFromPrefixes([{ start: 0x08080800n, length: 24, value: 1 }], [{ start: 0x20014860n << 96n, length: 32, value: 2 }], 3)),
  { now: stoppedClock },
);

describe('sharing a snapshot between threads', () => {
  it('answers the same from the shared columns, which are SharedArrayBuffers', () => {
    const shared = intel.share();
    expect(intel.share()).toBe(shared);
    expect(Object.values(shared.columns).every((c) => c.buffer instanceof SharedArrayBuffer)).toBe(true);
    const copy = fromShared(shared, { now: stoppedClock });
    for (const ip of ['8.8.8.8', '8.8.9.1', '2001:4860::1', '::1']) expect(copy.check(ip)).toEqual(intel.check(ip));
  });

  it('fromSharedTrusted (internal) answers the same without the invariant pass, and refuses what share() did not make', async () => {
    const { fromSharedTrusted } = await import('../src/internal.js');
    const { fflateInflate } = await import('../src/inflate-fflate.js');
    const shared = intel.share();
    // IPv6 columns shared as stored (this snapshot had not decoded them): the copy needs an inflater for them.
    expect(shared.v6Stored).toBeDefined();
    expect(() => fromSharedTrusted(shared)).toThrow(/inflater/);
    const copy = fromSharedTrusted(shared, { inflate: fflateInflate, now: stoppedClock });
    for (const ip of ['8.8.8.8', '8.8.9.1', '2001:4860::1', '::1']) expect(copy.check(ip)).toEqual(intel.check(ip));
    expect(copy.info.counts).toEqual(intel.info.counts);
    expect(() => fromSharedTrusted({ meta: shared.meta, columns: shared.columns })).toThrow(IpIntelError);
    expect(() => fromSharedTrusted({ ...shared, v6Stored: null as never })).toThrow(IpIntelError);
    expect(() => fromSharedTrusted({ ...shared, columns: { ...shared.columns, 'v4.dir': new Uint8Array(4) } })).toThrow(/share\(\)/);
  });

  it('shareInto (internal) copies every column into the memory it is given, and those views answer the same', async () => {
    const { shareInto, fromSharedTrusted } = await import('../src/internal.js');
    const { fflateInflate } = await import('../src/inflate-fflate.js');
    // One SharedArrayBuffer for every column, handed out at multiples of 8 (as the CLI's batch kernel lays its memory out).
    const sab = new SharedArrayBuffer(1 << 24);
    let at = 8;
    const given: [number, number][] = [];
    const shared = shareInto(intel, (n) => {
      const view = new Uint8Array(sab, at, n);
      given.push([at, n]);
      at = (at + n + 7) & ~7;
      return view;
    });
    const views = [...Object.values(shared.columns), ...Object.values(shared.v6Stored ?? {})];
    expect(views.length).toBe(given.length);
    expect(views.every((v) => v.buffer === sab)).toBe(true);
    // Each column its own bytes: no two overlap.
    const spans = views.map((v) => [v.byteOffset, v.byteOffset + v.byteLength] as const).sort((a, b) => a[0] - b[0]);
    spans.forEach((s, i) => i === 0 || expect(s[0]).toBeGreaterThanOrEqual(spans[i - 1]![1]));
    for (const open of [() => fromShared(shared, { now: stoppedClock }), () => fromSharedTrusted(shared, { inflate: fflateInflate, now: stoppedClock })]) {
      const copy = open();
      for (const ip of ['8.8.8.8', '8.8.9.1', '2001:4860::1', '::1']) expect(copy.check(ip)).toEqual(intel.check(ip));
    }
    // Memory of the wrong kind, size or place is refused.
    expect(() => shareInto(intel, (n) => new Uint8Array(n))).toThrow(RangeError);
    expect(() => shareInto(intel, (n) => new Uint8Array(new SharedArrayBuffer(n + 1)))).toThrow(RangeError);
    expect(() => shareInto(intel, (n) => new Uint8Array(new SharedArrayBuffer(n + 4), 4, n))).toThrow(RangeError);
  });

  it('crosses a worker thread without copying the columns', async () => {
    // workerData is structured-cloned: SharedArrayBuffer-backed columns arrive as views of the same memory.
    const shared = intel.share();
    const code = `const { parentPort, workerData } = require('node:worker_threads');
      const col = workerData.columns['str.bytes'];
      parentPort.postMessage({ isShared: col.buffer instanceof SharedArrayBuffer, length: col.length });`;
    const w = new Worker(code, { eval: true, workerData: shared });
    const reply = await new Promise<{ isShared: boolean; length: number }>((res, rej) => {
      w.once('message', res);
      w.once('error', rej);
    });
    await w.terminate();
    expect(reply).toEqual({ isShared: true, length: (shared.columns['str.bytes'] as Uint8Array).length });
  });

  it('refuses a shared object whose columns are missing, mistyped or break an invariant', () => {
    const shared = intel.share();
    // `...shared` keeps the stored IPv6 columns, so each refusal is for the column named.
    const without = { ...shared, columns: { ...shared.columns, 'v4.blk': undefined as never } };
    expect(() => fromShared(without)).toThrow(/v4\.blk/);
    const mistyped = { ...shared, columns: { ...shared.columns, 'v4.blk': new Uint32Array(4) } };
    expect(() => fromShared(mistyped)).toThrow(IpIntelError);
    expect(() => fromShared(mistyped)).toThrow(/v4\.blk/);
    const dir = new Uint32Array((shared.columns['v4.dir'] as Uint32Array).length).fill(0x7fffff);
    expect(() => fromShared({ ...shared, columns: { ...shared.columns, 'v4.dir': dir } })).toThrow(/v4\.dir/);
    // Without the IPv6 columns stored or decoded, nothing to answer IPv6 with.
    expect(() => fromShared({ meta: shared.meta, columns: shared.columns })).toThrow(/v6\./);
    expect(() => fromShared(null as never)).toThrow(/share\(\)/);
  });

  it('refuses a shared meta whose unavailable signals or country names are not what a snapshot holds', () => {
    const shared = intel.share();
    const withMeta = (m: Record<string, unknown>) => ({ ...shared, meta: { ...shared.meta, ...m } });
    for (const unavailable of [5, 'tor', ['bogus_key'], [null]]) {
      expect(() => fromShared(withMeta({ unavailable }))).toThrow(expect.objectContaining({ code: 'snapshot_corrupt' }) as Error);
    }
    for (const country_names of [{ US: 5 }, { DE: { x: 1 } }, ['United States'], null]) {
      expect(() => fromShared(withMeta({ country_names }))).toThrow(expect.objectContaining({ code: 'snapshot_corrupt' }) as Error);
    }
    expect(fromShared(withMeta({ unavailable: undefined })).check('8.8.8.8')).toBeDefined();
    for (const build_date of ['x', '2026-08-22', '2026-08-22T00:00:00Z']) {
      expect(() => fromShared(withMeta({ build_date }))).toThrow(expect.objectContaining({ code: 'snapshot_corrupt' }) as Error);
    }
  });

  it('hands out a frozen meta: changing what share() gave cannot change the snapshot\'s answers', () => {
    const shared = intel.share();
    const before = intel.check('8.8.8.8');
    expect(Object.isFrozen(shared.meta)).toBe(true);
    expect(Object.isFrozen(shared.meta.country_names)).toBe(true);
    expect(() => {
      (shared.meta.country_names as Record<string, string>)['US'] = 'Elsewhere';
    }).toThrow(TypeError);
    expect(intel.check('8.8.8.8')).toEqual(before);
  });
});

describe('sharing a snapshot opened with Node zlib', () => {
  it('shares plain typed arrays, never Buffers (no deprecated Buffer constructor)', async () => {
    const { open } = await import('../src/index.js');
    const bytes = encodeSnapshot(modelFromPrefixes([{ start: 0x01010100n, length: 24, value: 1 }], [], 2));
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on('warning', onWarning);
    const shared = (await open(bytes)).share();
    await new Promise((r) => setTimeout(r, 10));
    process.off('warning', onWarning);
    expect(warnings).toEqual([]);
    expect(Object.values(shared.columns).some((c) => Buffer.isBuffer(c))).toBe(false);
  });
});

describe('the IPv4 index checked apart (the batch: a worker checks it while the main thread checks the rest)', () => {
  it('fromSharedButIndex4 runs every check but the IPv4 index\'s, checkSharedIndex4 exactly those', async () => {
    const { checkSharedIndex4, fromSharedButIndex4 } = await import('../src/internal.js');
    const shared = intel.share();
    const copy = fromSharedButIndex4(shared, { now: stoppedClock });
    for (const ip of ['8.8.8.8', '8.8.9.1', '2001:4860::1', '::1']) expect(copy.check(ip)).toEqual(intel.check(ip));
    expect(() => checkSharedIndex4(shared)).not.toThrow();
    // An IPv4 table whose entries point past every leaf: fromShared refuses it; apart, only checkSharedIndex4 does.
    const dir = new Uint32Array((shared.columns['v4.dir'] as Uint32Array).length).fill(0x7fffff);
    const badIndex = { ...shared, columns: { ...shared.columns, 'v4.dir': dir } };
    expect(() => fromShared(badIndex)).toThrow(/v4\.dir/);
    expect(() => fromSharedButIndex4(badIndex)).not.toThrow();
    expect(() => checkSharedIndex4(badIndex)).toThrow(IpIntelError);
    expect(() => checkSharedIndex4(badIndex)).toThrow(/v4\.dir/);
    expect(() => checkSharedIndex4({ ...shared, columns: { ...shared.columns, 'v4.blk': new Uint32Array(4) } })).toThrow(/v4\.blk/);
    // A table out of range: fromSharedButIndex4 refuses it, checkSharedIndex4 does not look.
    const pairNet = new Uint32Array((shared.columns['pair.net'] as Uint32Array).length).fill(0xffff);
    const badTable = { ...shared, columns: { ...shared.columns, 'pair.net': pairNet } };
    expect(() => fromSharedButIndex4(badTable)).toThrow(/pair\.net/);
    expect(() => checkSharedIndex4(badTable)).not.toThrow();
  });
});
