/**
 * The IPv6 index decoded on first use (docs/design.md "Loading"): the same
 * answers as a preloaded snapshot on every path, decoded exactly once, a
 * damaged IPv6 index (checksums right, an invariant broken) refused by every
 * IPv6 call with the error a preloading load gives while IPv4 keeps
 * answering, and shared snapshots carrying the IPv6 columns as they were:
 * decoded, or as stored for each thread to decode on its first IPv6 lookup.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { IpIntelError, defaultSnapshotPath, fromShared, loadSnapshot, nodeInflate, open, openSync, type Inflate, type IpIntel } from '../src/index.js';
import { flatRanges, fromSharedTrusted, leafCoverage } from '../src/internal.js';
import { bigIntToText, encodeSnapshot, format, readSnapshotMeta } from '../src/writer.js';
import { damageColumn, ipIntelErrorOf, modelFromPrefixes, resealSnapshot, stoppedClock, tempDir } from '@ipintel/testkit';
import { crc32 } from '../src/snapshot/checksum.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 300) });

const { dir, cleanup } = tempDir('ipintel-lazy-');
afterAll(cleanup);

// Enough IPv6 ranges that the writer deflates the IPv6 columns, some finer than /64 (sub-tables).
const model = modelFromPrefixes(
  Array.from({ length: 400 }, (_, i) => ({ start: BigInt(0x0a000000 + i * 256), length: 24, value: (i % 30) + 1 })),
  [
    ...Array.from({ length: 3000 }, (_, i) => ({ start: (0x20010db8n << 96n) | (BigInt(i * 3) << 80n), length: 48, value: (i % 30) + 1 })),
    { start: (0x20010db8n << 96n) | (5n << 80n) | 0x10000n, length: 112, value: 7 },
    { start: (0x20010db8n << 96n) | (6n << 80n) | 9n, length: 128, value: 8 },
  ],
  31,
);
const bytes = encodeSnapshot(model);
const V6_NAMES = format.V6_COLUMNS as readonly string[];
const meta = readSnapshotMeta(bytes);
const deflated = (v6: boolean): number => Object.entries(meta.columns).filter(([n, c]) => c.deflate && V6_NAMES.includes(n) === v6).length;
const path = join(dir, 'lazy.ipintel');
writeFileSync(path, bytes);

// Every snapshot below runs on one stopped clock: answers are compared across snapshots, and each one's
// allocation_age_days (the model's networks are dated) would otherwise follow the real UTC day.
const V4 = ['10.0.0.1', '10.1.2.3', '8.8.8.8', '0.0.0.0', '255.255.255.255'];
const V6 = ['2001:db8::1', '2001:db8:5::1:0:1', '2001:db8:6::9', '2001:db8:6::a', '::1', 'ffff::1', '2001:db8:1770::'];

/** An inflater that counts its calls. */
function counting(): { inflate: Inflate; calls: () => number } {
  let n = 0;
  return {
    inflate: (stored, rawSize) => {
      n++;
      return nodeInflate(stored, rawSize);
    },
    calls: () => n,
  };
}

describe('the IPv6 index on first use', () => {
  it('is inflated on the first IPv6 call, exactly once, whatever asks for it next', async () => {
    expect(deflated(true)).toBeGreaterThan(0);
    const eager = loadSnapshot(bytes, { preload: true, now: stoppedClock });
    const loads: [string, (inflate: Inflate) => IpIntel | Promise<IpIntel>][] = [
      ['loadSnapshot', (inflate) => loadSnapshot(bytes, { inflate, now: stoppedClock })],
      ['openSync', (inflate) => openSync(path, { inflate, now: stoppedClock })],
      ['open', (inflate) => open(path, { inflate, now: stoppedClock })],
      ['openSync(bytes)', (inflate) => openSync(bytes, { inflate, now: stoppedClock })],
    ];
    for (const [name, load] of loads) {
      const c = counting();
      const intel = await load(c.inflate);
      expect([name, c.calls()]).toEqual([name, deflated(false)]);
      // IPv4, info and IPv4 batches and matches do not need it.
      for (const ip of V4) expect(intel.check(ip)).toEqual(eager.check(ip));
      intel.checkBatch(V4);
      intel.match('10.0.0.1');
      expect(intel.info).toEqual(eager.info);
      expect([name, c.calls()]).toEqual([name, deflated(false)]);
      // The first IPv6 check inflates the IPv6 columns; nothing after it does again.
      expect(intel.check(V6[0]!)).toEqual(eager.check(V6[0]!));
      expect([name, c.calls()]).toEqual([name, deflated(false) + deflated(true)]);
      for (const ip of V6) {
        expect(intel.check(ip)).toEqual(eager.check(ip));
        expect(intel.match(ip)).toEqual(eager.match(ip));
      }
      expect(intel.checkBatch(V6)).toEqual(eager.checkBatch(V6));
      expect(flatRanges(intel, 6)).toEqual(flatRanges(eager, 6));
      expect(leafCoverage(intel)).toEqual(leafCoverage(eager));
      intel.share();
      expect([name, c.calls()]).toEqual([name, deflated(false) + deflated(true)]);
    }
  });

  it('preload inflates everything at load', () => {
    const c = counting();
    loadSnapshot(bytes, { inflate: c.inflate, preload: true });
    expect(c.calls()).toBe(deflated(false) + deflated(true));
    const d = counting();
    openSync(path, { inflate: d.inflate, preload: true });
    expect(d.calls()).toBe(deflated(false) + deflated(true));
  });

  it('share() hands on the IPv6 columns of a lazy snapshot as stored; each copy decodes them on its first IPv6 call and answers as a preloaded one', () => {
    const eager = loadSnapshot(bytes, { preload: true, now: stoppedClock });
    const c = counting();
    const lazy = loadSnapshot(bytes, { inflate: c.inflate, now: stoppedClock });
    const atLoad = c.calls();
    const shared = lazy.share();
    expect(c.calls()).toBe(atLoad);
    expect(Object.keys(shared.columns).sort()).toEqual(Object.keys(format.COLUMNS).filter((n) => !V6_NAMES.includes(n)).sort());
    expect(Object.keys(shared.v6Stored ?? {}).sort()).toEqual([...V6_NAMES].sort());
    const views = [...Object.values(shared.columns), ...Object.values(shared.v6Stored!)];
    expect(views.every((col) => col.buffer instanceof SharedArrayBuffer)).toBe(true);
    for (const [name, copy] of [
      ['fromShared', fromShared(shared, { inflate: c.inflate, now: stoppedClock })],
      ['fromSharedTrusted', fromSharedTrusted(shared, { inflate: c.inflate, now: stoppedClock })],
    ] as const) {
      const before = c.calls();
      for (const ip of V4) expect(copy.check(ip)).toEqual(eager.check(ip));
      expect([name, c.calls()]).toEqual([name, before]);
      for (const ip of V6) expect(copy.check(ip)).toEqual(eager.check(ip));
      expect([name, c.calls()]).toEqual([name, before + deflated(true)]);
      expect(copy.info.counts).toEqual(eager.info.counts);
    }
    for (const ip of V6) expect(lazy.check(ip)).toEqual(eager.check(ip));
    // Once this snapshot has decoded them, a share() made before still carries them as stored.
    expect(lazy.share()).toBe(shared);
    expect(() => fromSharedTrusted(shared)).toThrow(/inflater/);
  });

  it('share() of a snapshot whose IPv6 columns are decoded carries them decoded', () => {
    const eager = loadSnapshot(bytes, { preload: true, now: stoppedClock });
    const lazy = loadSnapshot(bytes, { now: stoppedClock });
    lazy.check(V6[0]!);
    for (const intel of [eager, lazy]) {
      const shared = intel.share();
      expect(shared.v6Stored).toBeUndefined();
      expect(Object.keys(shared.columns).sort()).toEqual(Object.keys(format.COLUMNS).sort());
      const copy = fromSharedTrusted(shared, { now: stoppedClock });
      for (const ip of [...V4, ...V6]) expect(copy.check(ip)).toEqual(eager.check(ip));
    }
  });

  it('fromShared refuses IPv6 columns shared as stored that do not match the meta, and a filtered one stored raw is decoded by each copy alike', () => {
    const eager = loadSnapshot(bytes, { preload: true, now: stoppedClock });
    const shared = loadSnapshot(bytes).share();
    const stored = shared.v6Stored!;
    const flipped = new Uint8Array(stored['v6.w1']!);
    flipped[0]! ^= 1;
    expect(() => fromShared({ ...shared, v6Stored: { ...stored, 'v6.w1': flipped } })).toThrow(/v6\.w1 checksum/);
    expect(() => fromShared({ ...shared, v6Stored: { ...stored, 'v6.w1': flipped.subarray(1) } })).toThrow(/v6\.w1/);
    const missing: Record<string, Uint8Array> = { ...stored };
    delete missing['v6.leaf'];
    expect(() => fromShared({ ...shared, v6Stored: missing })).toThrow(/v6\.leaf/);
    // A column stored raw but filtered (a crafted file: the writer filters deflated columns only): the
    // filter is undone on a copy, so the shared bytes stay as stored for the next thread.
    const plain = encodeSnapshot(model, { compress: false });
    const rawFiltered = resealSnapshot(plain, (m, blobs, header) => {
      const ref = m.columns['v6.w1']!;
      const col = new Uint32Array(blobs.buffer.slice(blobs.byteOffset + ref.offset, blobs.byteOffset + ref.offset + ref.stored));
      for (let i = col.length - 1; i > 0; i--) col[i] = (col[i]! - col[i - 1]!) >>> 0;
      blobs.set(new Uint8Array(col.buffer), ref.offset);
      ref.filter = 'delta';
      ref.checksum = crc32(new Uint8Array(col.buffer));
      header.setUint16(10, header.getUint16(10, true) | format.FLAG_FILTERS, true);
    });
    const crafted = loadSnapshot(rawFiltered, { now: stoppedClock });
    for (const ip of V6) expect(crafted.check(ip)).toEqual(eager.check(ip));
    const fresh = loadSnapshot(rawFiltered).share();
    expect(fresh.v6Stored).toBeDefined();
    for (let k = 0; k < 2; k++) {
      const copy = fromShared(fresh, { now: stoppedClock });
      for (const ip of V6) expect(copy.check(ip)).toEqual(eager.check(ip));
    }
  });
});

describe('a damaged IPv6 index (checksums right, an invariant broken)', () => {
  const plain = encodeSnapshot(model, { compress: false });
  // The first IPv6 range's leaf id, 0x7f0000 and up: below the sub-table bit, beyond every leaf.
  const badLeaf = damageColumn(plain, 'v6.leaf', (col) => col.setUint8(2, 0x7f));
  // A raw column marked deflated: its checksum holds, its stream does not inflate to its size.
  const notDeflate = resealSnapshot(plain, (m, _blobs, header) => {
    m.columns['v6.w1']!.deflate = true;
    header.setUint16(10, header.getUint16(10, true) | format.FLAG_DEFLATE, true);
  });

  it.each([
    ['an IPv6 leaf id out of range', badLeaf, /IPv6 leaf id is out of range/],
    ['a column that does not inflate', notDeflate, /column v6\.w1/],
  ])('%s: refused at load with preload; without, by every IPv6 call with the same error, while IPv4 answers', async (_what, file, pattern) => {
    const filePath = join(dir, `bad-${file.length}.ipintel`);
    writeFileSync(filePath, file);
    const eager = loadSnapshot(bytes, { preload: true, now: stoppedClock });
    // Each load path against itself: fflate (loadSnapshot) and zlib word an inflate failure differently.
    const loads: [string, (preload: boolean) => IpIntel | Promise<IpIntel>][] = [
      ['loadSnapshot', (preload) => loadSnapshot(file, { preload, now: stoppedClock })],
      ['openSync', (preload) => openSync(filePath, { preload, now: stoppedClock })],
      ['open', (preload) => open(filePath, { preload, now: stoppedClock })],
      ['open(bytes)', (preload) => open(file, { preload, now: stoppedClock })],
    ];
    for (const [name, load] of loads) {
      const atLoad = await Promise.resolve()
        .then(() => load(true))
        .then(
        () => new Error(`${name} loaded a damaged file with preload`),
        (e: unknown) => e,
      );
      expect(atLoad).toBeInstanceOf(IpIntelError);
      expect([name, (atLoad as IpIntelError).code]).toEqual([name, 'snapshot_corrupt']);
      expect((atLoad as IpIntelError).message).toMatch(pattern);
      const intel = await load(false);
      expect(intel.check('10.0.0.1')).toEqual(eager.check('10.0.0.1'));
      for (const call of [
        () => intel.check('2001:db8::1'),
        () => intel.check('2001:db8::2'), // a later call: the same refusal, not a half-built index
        () => intel.checkBatch(['10.0.0.1', '2001:db8::1']),
        () => intel.match('2001:db8::1'),
        () => intel.share(),
        () => flatRanges(intel, 6),
        () => leafCoverage(intel),
      ]) {
        const e = ipIntelErrorOf(call);
        expect([name, e.code, e.message]).toEqual([name, 'snapshot_corrupt', (atLoad as IpIntelError).message]);
      }
      // IPv4 keeps answering, one by one and in batches.
      expect(intel.check('10.1.2.3')).toEqual(eager.check('10.1.2.3'));
      expect(intel.checkBatch(V4)).toEqual(eager.checkBatch(V4));
      expect(intel.check('::ffff:10.0.0.1')).toEqual(eager.check('10.0.0.1'));
    }
  });
});

// The default snapshot (built by `pnpm test` before the tests run): real IPv6 ranges, thousands of them.
const defaultPath = defaultSnapshotPath();
describe('the default snapshot, lazy and preloaded', () => {
  it('answers every address the same on every load path (property)', async () => {
    const eager = openSync(defaultPath, { preload: true, now: stoppedClock });
    const lazies = [openSync(defaultPath, { now: stoppedClock }), await open(defaultPath, { now: stoppedClock }), loadSnapshot(readFileSync(defaultPath), { now: stoppedClock })];
    const ranges6 = flatRanges(eager, 6);
    const n6 = ranges6.leaves.length;
    const startOf = (i: number): bigint => ranges6.starts.subarray(4 * i, 4 * i + 4).reduce((x, w) => (x << 32n) | BigInt(w), 0n);
    const MAX = (1n << 128n) - 1n;
    // IPv6 near range edges (most answers differ there) and anywhere.
    const v6 = fc.oneof(
      fc.tuple(fc.nat(n6 - 1), fc.bigInt(-3n, 3n)).map(([i, d]) => bigIntToText(6, (startOf(i) + d + MAX + 1n) % (MAX + 1n))),
      fc.bigInt(0n, MAX).map((x) => bigIntToText(6, x)),
    );
    const v4 = fc.nat(0xffffffff).map((x) => bigIntToText(4, BigInt(x)));
    fc.assert(
      fc.property(fc.oneof(v4, v6), (ip) => {
        const want = eager.check(ip);
        const prefix = eager.match(ip);
        for (const intel of lazies) {
          expect(intel.check(ip)).toEqual(want);
          expect(intel.match(ip)).toEqual(prefix);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
