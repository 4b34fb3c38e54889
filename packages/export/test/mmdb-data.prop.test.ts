/**
 * The MMDB data section encoder: random values of every type the writer
 * emits (strings of each size class up to 70 kB, booleans, uint16, uint32,
 * int32, uint64, doubles, arrays, maps, nested) read back equal with
 * mmdb-lib, whether stored inline or replaced by a pointer of 2, 3 or 4
 * bytes (the data section is padded to push offsets past each pointer
 * size's limit); an equal value put twice is stored once.
 */
import fc from 'fast-check';
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { DataWriter, MAX_DATA_BYTES, MmdbNumber, type MmdbValue } from '../src/mmdb/data.js';
import { encodeMmdb } from '../src/mmdb/file.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 60) });

const META = { databaseType: 'test', languages: ['en'], description: { en: 'test' }, buildEpoch: 0 };

const text = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ minLength: 29, maxLength: 400 }) },
  { weight: 1, arbitrary: fc.integer({ min: 285, max: 70_000 }).map((n) => 'é'.repeat(Math.ceil(n / 2)).slice(0, n)) },
);
const number = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((v) => new MmdbNumber('uint16', v)),
  fc.integer({ min: 0, max: 0xffffffff }).map((v) => new MmdbNumber('uint32', v)),
  fc.integer({ min: -0x80000000, max: 0x7fffffff }).map((v) => new MmdbNumber('int32', v)),
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }).map((v) => new MmdbNumber('uint64', v)),
  fc.double({ noNaN: true }).map((v) => new MmdbNumber('double', v)),
);
const { value } = fc.letrec<{ value: MmdbValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.boolean(),
    number,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.string({ maxLength: 12 }), tie('value'), { maxKeys: 6 }),
  ),
}));

/** The value as a reader returns it: numbers plain (uint64 as bigint), -0 as 0 is kept by double. */
function plain(v: MmdbValue): unknown {
  if (v instanceof MmdbNumber) return v.type === 'uint64' ? BigInt(v.value) : v.value;
  if (Array.isArray(v)) return (v as readonly MmdbValue[]).map(plain);
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/** A file whose every address has the record at `offset`. */
function read(data: DataWriter, offset: number): unknown {
  const all = { words: 1 as const, starts: Uint32Array.of(0), values: Int32Array.of(offset) };
  const six = { words: 4 as const, starts: Uint32Array.of(0, 0, 0, 0), values: Int32Array.of(offset) };
  return new Reader(Buffer.from(encodeMmdb(all, six, data, META).bytes)).get('1.2.3.4');
}

describe('MMDB data section', () => {
  it('every value reads back equal, inline and through pointers of each size', () => {
    fc.assert(
      fc.property(value, fc.constantFrom(0, 3000, 600_000), (v, pad) => {
        const data = new DataWriter();
        if (pad > 0) data.put('p'.repeat(pad));
        const first = data.put(v);
        expect(data.put(v)).toBe(first);
        // The second copy inside the map is a pointer back to the first when that is shorter.
        const both = data.put({ a: v, b: v, n: [v] });
        expect(read(data, first)).toEqual(plain(v));
        expect(read(data, both)).toEqual({ a: plain(v), b: plain(v), n: [plain(v)] });
      }),
      { numRuns: 150 },
    );
  });

  it('a repeated part is a pointer only where that is shorter: a part never takes more bytes than written inline', () => {
    fc.assert(
      fc.property(fc.oneof(text, fc.boolean(), number), fc.constantFrom(0, 3000, 600_000), (v, pad) => {
        const data = new DataWriter();
        if (pad > 0) data.put('p'.repeat(pad));
        data.put({ a: v });
        const before = data.size;
        data.put({ b: v });
        const fresh = new DataWriter();
        fresh.put({ b: v });
        expect(data.size - before).toBeLessThanOrEqual(fresh.size);
      }),
      { numRuns: 300 },
    );
  });

  it('stores a repeated part once: the second occurrence is a pointer', () => {
    const data = new DataWriter();
    const city = 'Saint-Denis-de-la-Réunion';
    data.put({ city, country: 'RE' });
    const before = data.size;
    data.put({ town: city });
    // A map of one pair: control byte, the key "town" (5 bytes), a 2-byte pointer instead of 26 bytes.
    expect(data.size - before).toBe(1 + 5 + 2);
  });

  it('never writes past its limit: a section that would is too_large, not offsets that wrap (the limit is 2^31 - 3 for the export)', () => {
    expect(MAX_DATA_BYTES).toBe(2 ** 31 - 3);
    fc.assert(
      fc.property(fc.integer({ min: 16, max: 400 }), fc.array(fc.string({ minLength: 1, maxLength: 40 }), { maxLength: 40 }), (maxBytes, texts) => {
        const data = new DataWriter({ pointers: true, maxBytes });
        for (const t of texts) {
          try {
            data.put(t);
          } catch (e) {
            expect(e).toMatchObject({ code: 'too_large' });
            break;
          }
        }
        expect(data.size).toBeLessThanOrEqual(maxBytes);
      }),
    );
  });

  it('rejects a number outside its type (a typed error, not a wrong file)', () => {
    expect(() => new DataWriter().put(new MmdbNumber('uint16', 70_000))).toThrow(/not a valid uint16/);
    expect(() => new DataWriter().put(new MmdbNumber('uint32', 1.5))).toThrow(/not a valid uint32/);
  });
});
