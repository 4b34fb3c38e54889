/**
 * A snapshot that cannot be trusted is refused with a typed error, never
 * answered from: truncation, trailing bytes, flipped bits, newer versions.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IpIntelError, loadSnapshot } from '../src/portable.js';
import { encodeSnapshot, format, crc32 } from '../src/writer.js';
import { damageColumn, modelFromPrefixes, resealSnapshot as withMeta, stoppedClock } from '@ipintel/testkit';
import { decodeSnapshot, readSnapshotMeta } from '../src/snapshot/decode.js';
import { fflateInflate } from '../src/inflate-fflate.js';
import { applyFilter, COLUMN_FILTERS, undoFilter } from '../src/snapshot/filters.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 200) });

const model = modelFromPrefixes(
  [{ start: 0x08080800n, length: 24, value: 1 }, { start: 0x01010100n, length: 24, value: 2 }],
  [{ start: 0x20014860n << 96n, length: 32, value: 1 }, { start: (0x20014860n << 96n) | 7n, length: 128, value: 2 }],
  3,
);
const good = encodeSnapshot(model);

function errorCode(bytes: Uint8Array): string | undefined {
  try {
    loadSnapshot(bytes);
  } catch (e) {
    return e instanceof IpIntelError ? e.code : `other: ${String(e)}`;
  }
  return undefined;
}

/** Rewrites header fields and re-seals the header checksum, as a newer writer would. */
function withHeader(bytes: Uint8Array, edit: (dv: DataView) => void): Uint8Array {
  const copy = bytes.slice();
  const dv = new DataView(copy.buffer);
  edit(dv);
  dv.setUint32(28, crc32(copy.subarray(0, 28)), true);
  return copy;
}

describe('snapshot loading', () => {
  it('loads what the writer wrote, compressed or not', () => {
    expect(errorCode(good)).toBeUndefined();
    expect(errorCode(encodeSnapshot(model, { compress: false }))).toBeUndefined();
    expect(loadSnapshot(encodeSnapshot(model, { compress: false })).check('1.1.1.1').geo.city).toBe('city-2');
  });

  it('refuses every truncation with snapshot_corrupt', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: good.length - 1 }), (n) => {
        expect(errorCode(good.subarray(0, n))).toBe('snapshot_corrupt');
      }),
    );
  });

  it('refuses a deflated column that claims more than its stored bytes can inflate to', () => {
    // Deflate expands ~1,032 times at most; a larger count is a crafted meta, refused before any
    // buffer of that size is asked for (open() failed with a bare RangeError there).
    const columns = readSnapshotMeta(good).columns as Record<string, { deflate?: boolean; stored: number }>;
    const name = Object.keys(columns).find((n) => columns[n]!.deflate === true)!;
    const stored = columns[name]!.stored;
    const claim = (count: number): Uint8Array => withMeta(good, (meta) => void (meta.columns[name]!.count = count));
    expect(errorCode(claim(2 ** 30 + 1))).toBe('snapshot_corrupt');
    expect(() => loadSnapshot(claim(2 ** 30 + 1))).toThrow(/more than its \d+ stored bytes can inflate to/);
    // Within the ratio it is still refused, later, by the inflated length.
    expect(errorCode(claim(stored * 100))).toBe('snapshot_corrupt');
  });

  it('refuses a build date that is no ISO UTC time (freshness read it as age 0, the MMDB export as epoch NaN), and an encoder will not write one', () => {
    for (const date of ['x', '2026-08-22', '2026-02-30T00:00:00.000Z', '2026-08-22T00:00:00Z']) {
      const bytes = withMeta(good, (meta) => void ((meta as unknown as Record<string, unknown>)['build_date'] = date));
      expect(errorCode(bytes), date).toBe('snapshot_corrupt');
      expect(() => loadSnapshot(bytes), date).toThrow(/build date .* is not an ISO UTC time/);
      expect(() => encodeSnapshot({ ...model, build_date: date }), date).toThrow(RangeError);
    }
    expect(loadSnapshot(withMeta(good, (meta) => void ((meta as unknown as Record<string, unknown>)['build_date'] = '2024-02-29T23:59:59.999Z'))).info.build_date).toBe('2024-02-29T23:59:59.999Z');
  });

  it('refuses country names that are not strings (answers carry them as geo.country)', () => {
    for (const names of [{ US: 5 }, { DE: { x: 1 } }, ['United States']]) {
      expect(errorCode(withMeta(good, (meta) => void ((meta as unknown as Record<string, unknown>)['country_names'] = names)))).toBe('snapshot_corrupt');
    }
  });

  it("reads the meta's IPv6 range count when it is one the index can hold, refuses one it cannot, and counts the entries without it", () => {
    const entries = (() => {
      const bytes = withMeta(good, (meta) => void delete (meta as { ranges_v6?: number }).ranges_v6);
      return loadSnapshot(bytes).info.counts.ipv6_ranges; // a file from before the field: the index's entries
    })();
    const built = readSnapshotMeta(good).ranges_v6!;
    expect(loadSnapshot(good).info.counts.ipv6_ranges).toBe(built);
    expect(built).toBeLessThanOrEqual(entries);
    const claim = (n: unknown): Uint8Array => withMeta(good, (meta) => void ((meta as unknown as Record<string, unknown>)['ranges_v6'] = n));
    expect(loadSnapshot(claim(entries)).info.counts.ipv6_ranges).toBe(entries);
    for (const bad of [0, -1, entries + 1, 1.5, '3', null, 2 ** 53]) {
      expect(errorCode(claim(bad)), String(bad)).toBe('snapshot_corrupt');
    }
  });

  it('refuses trailing bytes', () => {
    const longer = new Uint8Array(good.length + 3);
    longer.set(good);
    expect(errorCode(longer)).toBe('snapshot_corrupt');
  });

  it('refuses any single flipped bit with a typed error', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: good.length * 8 - 1 }), (bit) => {
        const bad = good.slice();
        bad[bit >>> 3]! ^= 1 << (bit & 7);
        const c = errorCode(bad);
        expect(c === 'snapshot_corrupt' || c === 'snapshot_version').toBe(true);
      }),
    );
  });

  it('refuses an older format version with snapshot_version, saying how to get a readable file', () => {
    expect(errorCode(withHeader(good, (dv) => dv.setUint16(8, format.SNAPSHOT_VERSION - 1, true)))).toBe('snapshot_version');
    expect(() => loadSnapshot(withHeader(good, (dv) => dv.setUint16(8, 1, true)))).toThrow(/version 1 is older .* rebuild/);
  });

  it('refuses a newer format version or unknown flags with snapshot_version', () => {
    expect(errorCode(withHeader(good, (dv) => dv.setUint16(8, format.SNAPSHOT_VERSION + 1, true)))).toBe('snapshot_version');
    expect(errorCode(withHeader(good, (dv) => dv.setUint16(10, 0x8001, true)))).toBe('snapshot_version');
    try {
      loadSnapshot(withHeader(good, (dv) => dv.setUint16(8, 9, true)));
    } catch (e) {
      expect((e as Error).message).toMatch(/version 9 .* upgrade/);
    }
  });

  it('says what a foreign file is', () => {
    expect(() => loadSnapshot(new Uint8Array([0x1f, 0x8b, 8, 0, ...new Array(40).fill(0)]))).toThrow(/gzip/);
    expect(errorCode(new TextEncoder().encode('{"not":"a snapshot"}'.padEnd(64)))).toBe('snapshot_corrupt');
  });

  it('refuses an allocation day past 9999-12-31 (no date; far enough past, Date would throw on it), and takes the null day', () => {
    for (const day of [0xfffffff0, 2_932_897]) {
      const out = damageColumn(encodeSnapshot(model, { compress: false }), 'net.allocation_day', (col) => col.setUint32(0, day, true));
      expect(errorCode(out)).toBe('snapshot_corrupt');
      expect(() => loadSnapshot(out)).toThrow(/net\.allocation_day/);
    }
    const last = damageColumn(encodeSnapshot(model, { compress: false }), 'net.allocation_day', (col) => col.setUint32(0, 2_932_896, true));
    expect(loadSnapshot(last).check('8.8.8.8').network.allocation_date).toBe('9999-12-31');
    const none = damageColumn(encodeSnapshot(model, { compress: false }), 'net.allocation_day', (col) => col.setUint32(0, format.NULL_DAY, true));
    expect(loadSnapshot(none).check('8.8.8.8').network.allocation_date).toBeNull();
  });

  it('refuses a payload whose index breaks an invariant even when every checksum is right', () => {
    // Damage an uncompressed index column, then re-seal its checksum, the meta and the header.
    const out = damageColumn(encodeSnapshot(model, { compress: false }), 'v4.dir', (col) => col.setUint32(0, 999, true)); // a leaf id beyond the table
    expect(errorCode(out)).toBe('snapshot_corrupt');
    expect(() => loadSnapshot(out)).toThrow(/v4\.dir/);
  });

  it('stores leaf.ids raw (read at every load: inflating it costs more load time than its bytes are worth) and deflates what deflates well', () => {
    // 300 leaves: leaf.ids (1,800 bytes of counting numbers) would deflate to a fraction.
    const many = modelFromPrefixes(
      Array.from({ length: 300 }, (_, i) => ({ start: BigInt(0x0a000000 + i * 256), length: 24, value: i })),
      [],
      300,
    );
    const packed = encodeSnapshot(many);
    const cols = readSnapshotMeta(packed).columns;
    expect(cols['leaf.ids']!.deflate).toBe(false);
    expect(cols['leaf.ids']!.stored).toBe(cols['leaf.ids']!.count * 2);
    expect(cols['geo.city']!.deflate).toBe(true);
    // One stopped clock: the answers carry allocation_age_days, which follows the UTC day.
    const plain = loadSnapshot(encodeSnapshot(many, { compress: false }), { now: stoppedClock });
    const intel = loadSnapshot(packed, { now: stoppedClock });
    for (let i = 0; i < 300; i += 37) {
      const ip = `10.${i >> 8}.${i & 255}.1`; // inside prefix i (10.0.0.0 + 256 i)
      expect(intel.check(ip)).toEqual(plain.check(ip));
      expect(intel.check(ip).geo.city).toBe(`city-${i}`);
    }
  });

  it('reports info from the meta', () => {
    const intel = loadSnapshot(good);
    expect(intel.info.build_date).toBe('2026-01-01T00:00:00.000Z');
    expect(intel.info.counts.leaves).toBe(3);
    expect(Object.isFrozen(intel.info)).toBe(true);
  });
});

describe('crc32 (the format\'s checksum)', () => {
  it('is the CRC-32 zlib computes, for any bytes', async () => {
    const zlib = await import('node:zlib');
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    const native = (zlib as { crc32?: (b: Uint8Array) => number }).crc32;
    if (native === undefined) return; // Node before 20.15: the known vectors above only
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (b) => {
        expect(crc32(b)).toBe(native(b));
      }),
    );
  });
});

describe('readSnapshotMeta', () => {
  it('reads the meta without the columns, and refuses a damaged header or meta', async () => {
    const { readSnapshotMeta } = await import('../src/writer.js');
    expect(readSnapshotMeta(good).build_date).toBe('2026-01-01T00:00:00.000Z');
    // A damaged column does not matter here (it is not read), a damaged meta does.
    const badColumn = good.slice();
    badColumn[badColumn.length - 1]! ^= 0xff;
    expect(readSnapshotMeta(badColumn).build_date).toBe('2026-01-01T00:00:00.000Z');
    const badMeta = good.slice();
    badMeta[40]! ^= 0xff;
    expect(() => readSnapshotMeta(badMeta)).toThrow(/meta checksum/);
    expect(() => readSnapshotMeta(good.subarray(0, 20))).toThrow(IpIntelError);
  });
});

describe('column filters (filters.ts)', () => {
  it('undoFilter(applyFilter(x)) is x, for any 16- or 32-bit column', () => {
    const columns = fc.oneof(
      fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 300 }).map((a) => Uint16Array.from(a)),
      fc.array(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 300 }).map((a) => Uint32Array.from(a)),
    );
    fc.assert(
      fc.property(fc.constantFrom(...COLUMN_FILTERS), columns, (filter, column) => {
        const stored = applyFilter(filter, column);
        expect(stored.constructor).toBe(column.constructor);
        undoFilter(filter, stored);
        expect(stored).toEqual(column);
      }),
    );
  });

  // Enough ranges that the index columns run to thousands of rising numbers: filters pay there.
  const many = modelFromPrefixes(
    Array.from({ length: 3000 }, (_, i) => ({ start: BigInt(0x0a000000 + i * 512), length: 24, value: (i % 40) + 1 })),
    Array.from({ length: 3000 }, (_, i) => ({ start: (0x20010db8n << 96n) | (BigInt(i * 3) << 80n), length: 48, value: (i % 40) + 1 })),
    41,
  );
  const filtered = encodeSnapshot(many);
  const plain = encodeSnapshot(many, { compress: false });

  it('the writer filters the columns where that stores less, and the reader gets every column back bit for bit', () => {
    const meta = readSnapshotMeta(filtered);
    const used = Object.entries(meta.columns).filter(([, c]) => c.filter !== undefined);
    expect(used.length).toBeGreaterThan(0);
    expect(new DataView(filtered.buffer).getUint16(10, true) & format.FLAG_FILTERS).toBe(format.FLAG_FILTERS);
    expect(new DataView(plain.buffer).getUint16(10, true) & format.FLAG_FILTERS).toBe(0);
    const all = (bytes: Uint8Array): Record<string, ArrayLike<number>> => {
      const d = decodeSnapshot(bytes, fflateInflate);
      return { ...d.columns, ...d.v6() };
    };
    const a = all(filtered);
    const b = all(plain);
    for (const name of Object.keys(format.COLUMNS)) {
      expect(a[name]).toBeDefined();
      expect([name, a[name]]).toEqual([name, b[name]]);
    }
  });

  it('refuses a filter this reader does not know (snapshot_version), one on a byte or float column or without the header flag (snapshot_corrupt)', () => {
    const filteredName = Object.entries(readSnapshotMeta(filtered).columns).find(([, c]) => c.filter !== undefined)![0];
    expect(errorCode(withMeta(filtered, (meta) => void (meta.columns[filteredName]!.filter = 'zigzag')))).toBe('snapshot_version');
    expect(errorCode(withMeta(filtered, (meta) => void (meta.columns['v4.blk']!.filter = 'delta')))).toBe('snapshot_corrupt');
    expect(errorCode(withMeta(filtered, (meta) => void (meta.columns['geo.latitude']!.filter = 'delta')))).toBe('snapshot_corrupt');
    expect(errorCode(withMeta(filtered, (_meta, _blobs, header) => header.setUint16(10, format.FLAG_DEFLATE, true)))).toBe('snapshot_corrupt');
    // The same edits' control: re-sealed but unchanged, the file loads.
    expect(errorCode(withMeta(filtered, () => undefined))).toBeUndefined();
  });
});
