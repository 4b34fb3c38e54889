/**
 * The MMDB writer against the naive longest-prefix oracle: random prefix
 * sets (nested and adjacent on purpose) are flattened, written as an MMDB
 * file and read back with mmdb-lib (the `maxmind` reader), with each record size (24, 28, 32 bits). Every probed
 * address answers what a linear scan of the prefixes says, in both families
 * and through the IPv4 places of the tree (::/96 and ::ffff:0:0/96);
 * addresses no prefix covers have no record. The metadata reads back, and
 * the record size is the smallest that fits.
 */
import fc from 'fast-check';
import { Reader } from 'maxmind';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bigIntToText, flattenPrefixes, type PrefixEntry } from '@ipintel/core/writer';
import { naiveLpm, prefixSetArb, probeAddresses, tempDir } from '@ipintel/testkit';
import { DataWriter, MmdbNumber } from '../src/mmdb/data.js';
import { encodeMmdb } from '../src/mmdb/file.js';
import { NO_DATA, type TreeRanges } from '../src/mmdb/tree.js';
import { mmdblookup } from './mmdblookup.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 60) });

const V4_LENGTHS = [0, 1, 8, 15, 16, 17, 24, 31, 32];
const V6_LENGTHS = [0, 1, 3, 16, 32, 63, 64, 65, 95, 96, 97, 112, 127, 128];
const LEAVES = 8;
const RECORD_SIZE = fc.constantFrom(24 as const, 28 as const, 32 as const);
const META = { databaseType: 'ipintel-test', languages: ['en'], description: { en: 'test' }, buildEpoch: 1_767_225_600 };

/** The record of value v: a small map (v = 0 is no record). */
const record = (v: number) => ({ value: `value-${v}`, n: new MmdbNumber('uint32', v), odd: v % 2 === 1 });

function ranges(version: 4 | 6, prefixes: readonly PrefixEntry<number>[], data: DataWriter): TreeRanges {
  const flat = flattenPrefixes(version, [...prefixes], 0);
  const words = version === 4 ? 1 : 4;
  const starts = new Uint32Array(flat.starts.length * words);
  flat.starts.forEach((s, i) => {
    for (let k = 0; k < words; k++) starts[i * words + k] = Number((s >> BigInt(32 * (words - 1 - k))) & 0xffffffffn);
  });
  const values = Int32Array.from(flat.values, (v) => (v === 0 ? NO_DATA : data.put(record(v))));
  return { words, starts, values };
}

function write(p4: readonly PrefixEntry<number>[], p6: readonly PrefixEntry<number>[], minRecordSize: 24 | 28 | 32 = 24) {
  const data = new DataWriter();
  const file = encodeMmdb(ranges(4, p4, data), ranges(6, p6, data), data, META, { minRecordSize });
  return { file, reader: new Reader(Buffer.from(file.bytes)) };
}

const expected = (v: number) => (v === 0 ? null : { value: `value-${v}`, n: v, odd: v % 2 === 1 });

describe('MMDB writer vs naive longest-prefix scan', () => {
  it('IPv4 addresses, and the same addresses IPv4-mapped, answer the oracle', () => {
    fc.assert(
      fc.property(prefixSetArb(32, V4_LENGTHS, LEAVES), fc.array(fc.bigInt({ min: 0n, max: 0xffffffffn }), { maxLength: 30 }), RECORD_SIZE, (prefixes, random, size) => {
        const { reader, file } = write(prefixes, [], size);
        expect(file.recordSize).toBe(size);
        for (const x of probeAddresses(32, prefixes, random)) {
          const want = expected(naiveLpm(32, prefixes, x));
          expect(reader.get(bigIntToText(4, x))).toEqual(want);
          expect(reader.get(`::ffff:${bigIntToText(4, x)}`)).toEqual(want);
        }
      }),
    );
  });

  it('IPv6 addresses answer the oracle outside ::/96 and ::ffff:0:0/96, and the IPv4 answer inside them', () => {
    fc.assert(
      fc.property(
        prefixSetArb(32, V4_LENGTHS, LEAVES),
        prefixSetArb(128, V6_LENGTHS, LEAVES),
        fc.array(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), { maxLength: 30 }),
        RECORD_SIZE,
        (p4, p6, random, size) => {
          const { reader } = write(p4, p6, size);
          const probes = probeAddresses(128, p6, [...random, 0n, 0xffffn << 32n, (0xffffn << 32n) + 0x01020304n, 1n << 32n, (0xffffn << 32n) - 1n, 0x10000n << 32n]);
          for (const x of probes) {
            const hi = x >> 32n;
            const want = hi === 0n || hi === 0xffffn ? naiveLpm(32, p4, x & 0xffffffffn) : naiveLpm(128, p6, x);
            expect(reader.get(bigIntToText(6, x)), bigIntToText(6, x)).toEqual(expected(want));
          }
        },
      ),
    );
  });

  it('records its metadata, the smallest record size, and stores each distinct record once', () => {
    const p4: PrefixEntry<number>[] = [
      { start: 0x0a000000n, length: 8, value: 1 },
      { start: 0x0b000000n, length: 8, value: 1 },
      { start: 0xc0a80000n, length: 16, value: 2 },
    ];
    const { file, reader } = write(p4, [{ start: 0x2001n << 112n, length: 16, value: 1 }]);
    expect(reader.metadata).toMatchObject({
      binaryFormatMajorVersion: 2,
      binaryFormatMinorVersion: 0,
      databaseType: 'ipintel-test',
      description: { en: 'test' },
      ipVersion: 6,
      languages: ['en'],
      nodeCount: file.nodeCount,
      recordSize: 24,
    });
    expect(reader.metadata.buildEpoch.getTime()).toBe(META.buildEpoch * 1000);
    // Two records (value 1 three times, value 2 once): the second copy of "value-1" is never written.
    const text = Buffer.from(file.bytes).toString('latin1');
    expect(text.split('value-1').length - 1).toBe(1);
    expect(reader.get('10.1.2.3')).toEqual(expected(1));
    expect(reader.get('11.1.2.3')).toEqual(expected(1));
    expect(reader.get('12.1.2.3')).toBeNull();
    // 10.0.0.0/7 holds one record: the tree has no node below it.
    expect(reader.getWithPrefixLength('10.1.2.3')[1]).toBe(7);
  });

  it('record values past 2^24 (the 28-bit layout, chosen by size: 4 bits of each record share a byte) read back with both readers', () => {
    const data = new DataWriter();
    // A 16.8 MB string first: every record after it lies past 2^24.
    data.put('x'.repeat(16_800_000));
    const p4: PrefixEntry<number>[] = [
      { start: 0x0a000000n, length: 8, value: 1 },
      { start: 0xc0a80000n, length: 16, value: 2 },
      { start: 0xc0a80100n, length: 24, value: 3 },
    ];
    const p6: PrefixEntry<number>[] = [{ start: 0x2001n << 112n, length: 16, value: 3 }];
    const file = encodeMmdb(ranges(4, p4, data), ranges(6, p6, data), data, META);
    expect(file.recordSize).toBe(28);
    const { dir, cleanup } = tempDir('ipintel-mmdb-');
    try {
      const path = join(dir, 'big.mmdb');
      writeFileSync(path, file.bytes);
      const reader = new Reader(Buffer.from(file.bytes));
      for (const [ip, v] of [['10.9.8.7', 1], ['192.168.0.1', 2], ['192.168.1.1', 3], ['2001::1', 3], ['11.0.0.1', 0], ['::ffff:192.168.1.9', 3]] as const) {
        expect(reader.get(ip), ip).toEqual(expected(v));
        expect(mmdblookup(path, ip), ip).toEqual(expected(v));
      }
    } finally {
      cleanup();
    }
  });
});
