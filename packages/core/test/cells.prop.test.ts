/**
 * RecordCells (snapshot/cells.ts) writes a record's fields as CSV cells
 * straight from the columns; the rule: for every row and field, its bytes
 * are csvCell() of the value the result object holds, UTF-8 encoded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSnapshot } from '../src/portable.js';
import { csvCell, recordCells, resultForLeaf } from '../src/internal.js';
import { encodeSnapshot } from '../src/writer.js';
import { isoDay } from '../src/clock.js';
import { coordinateCell } from '../src/snapshot/cells.js';
import { coordinate as coordinateNumber } from '../src/snapshot/tables.js';
import { modelFromPrefixes } from '@ipintel/testkit';
import type { Geo, Network } from '../src/types.js';
import type { GeoRow, NetworkRow, SnapshotModel } from '../src/snapshot/model.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 100) });

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const GEO_FIELDS = ['country', 'country_code', 'region', 'city', 'latitude', 'longitude', 'timezone'] as const satisfies readonly (keyof Geo)[];
const NET_FIELDS = [
  'asn', 'as_org', 'is_announced', 'is_bogon', 'rpki', 'allocation_date', 'allocation_age_days', 'registration_country',
] as const satisfies readonly (keyof Network)[];

/** Text that CSV must quote or that is not ASCII, as well as plain words. */
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.string({ unit: fc.constantFrom('a', ',', '"', '\r', '\n', 'é', ' '), maxLength: 8 }),
  // What JSON escapes (quote, backslash, control characters) and what it does not (/, U+2028, U+007F).
  fc.string({ unit: fc.constantFrom('a', '"', '\\', '\u0001', '\t', '\u001f', '/', '\u2028', '\u007f'), maxLength: 8 }),
);
const maybe = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(a, { nil: null });
// Real coordinates, and what a crafted file may hold (infinities, float32 extremes: past the integer fast path).
const coordinate = maybe(
  fc.oneof(
    fc.double({ min: -180, max: 180, noNaN: true }),
    fc.integer({ min: -90, max: 90 }),
    fc.constantFrom(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 3.4e38, -3.4e38, 1e6),
  ),
);
/** The snapshot's one name per country code (none for codes starting with `x`), some to be quoted. */
const countryName = (code: string | null): string | null =>
  code === null || code.startsWith('x') ? null : code.length % 2 === 0 ? `Land, "${code}"` : `Pays ${code}é`;
const geoRow: fc.Arbitrary<GeoRow> = fc
  .record({
    country_code: maybe(fc.oneof(text, fc.constantFrom('DE', 'FR', 'US', 'xx'))),
    region: maybe(text),
    city: maybe(text),
    latitude: coordinate,
    longitude: coordinate,
    timezone: maybe(text),
  })
  .map((r) => ({ ...r, country: countryName(r.country_code) }));
const date = fc.integer({ min: 0, max: 2_932_896 }).map((d) => new Date(d * DAY).toISOString().slice(0, 10));
const netRow: fc.Arbitrary<NetworkRow> = fc.record({
  asn: fc.nat({ max: 0xffffffff }),
  as_org: text,
  is_announced: fc.boolean(),
  is_bogon: fc.boolean(),
  rpki: fc.constantFrom(null, 'valid', 'invalid', 'not-found', 'unknown'),
  allocation_date: maybe(fc.oneof(date, fc.constant('2026-11-23'), fc.constant('2030-01-01'))),
  registration_country: maybe(text),
  routing_inferred: fc.boolean(),
});

/** A snapshot of these rows: leaf i has geo row i and network row i mod the network count. */
function snapshotOf(geo: readonly GeoRow[], networks: readonly NetworkRow[]): SnapshotModel {
  const base = modelFromPrefixes([], [], 1);
  const n = Math.max(geo.length, networks.length);
  return {
    ...base,
    geo,
    networks,
    leaves: Array.from({ length: n }, (_, i) => ({ geo: i % geo.length, net: i % networks.length, sig: 0 })),
  };
}

const bytesOf = (write: (out: Uint8Array, at: number) => number): string => {
  // A buffer too small at first: the writer says so (-1) and is asked again with more room.
  for (let size = 1; ; size *= 2) {
    const out = new Uint8Array(size).fill(0x3f);
    const end = write(out, 3 % size);
    if (end >= 0) return Buffer.from(out.subarray(3 % size, end)).toString('latin1');
  }
};
const expected = (value: unknown): string => Buffer.from(csvCell(value)).toString('latin1');
const expectedJson = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('latin1');

describe('RecordCells', () => {
  it('writes every field of every geo and network row as csvCell, and as JSON.stringify, of the result object value', () => {
    fc.assert(
      fc.property(fc.array(geoRow, { minLength: 1, maxLength: 6 }), fc.array(netRow, { minLength: 1, maxLength: 6 }), (geo, networks) => {
        const intel = loadSnapshot(encodeSnapshot(snapshotOf(geo, networks)), { now: () => NOW });
        const cells = recordCells(intel);
        const today = Math.floor(NOW / DAY);
        // Reading ahead (the batch does it before rendering) reads only rows and strings that exist: a read past an end would make the sum NaN.
        const all = (k: number): Uint32Array => Uint32Array.from({ length: k }, (_, i) => i);
        expect(Number.isFinite(cells.warm(0, all(geo.length), geo.length, new Uint32Array(2 * geo.length)))).toBe(true);
        expect(Number.isFinite(cells.warm(1, all(networks.length), networks.length, new Uint32Array(2 * networks.length)))).toBe(true);
        for (let leaf = 0; leaf < Math.max(geo.length, networks.length); leaf++) {
          const r = resultForLeaf(intel, leaf, '0.0.0.0', 4);
          // The leaf's own record ids (the writer reads them by row, as the batch does).
          const g = leaf % geo.length;
          const net = leaf % networks.length;
          for (const f of GEO_FIELDS) expect(bytesOf((out, at) => cells.geo(f)!(g, today, out, at))).toBe(expected(r.geo[f]));
          for (const f of NET_FIELDS) expect(bytesOf((out, at) => cells.network(f)!(net, today, out, at))).toBe(expected(r.network[f]));
          for (const f of GEO_FIELDS) expect(bytesOf((out, at) => cells.geo(f, 'json')!(g, today, out, at)), f).toBe(expectedJson(r.geo[f]));
          for (const f of NET_FIELDS) expect(bytesOf((out, at) => cells.network(f, 'json')!(net, today, out, at)), f).toBe(expectedJson(r.network[f]));
          expect(cells.routingInferred(net)).toBe(r.evidence.routing === 'inferred');
        }
      }),
    );
  });

  it('has no writer for a field it does not know', () => {
    const cells = recordCells(loadSnapshot(encodeSnapshot(modelFromPrefixes([], [], 1))));
    expect(cells.geo('nope' as keyof Geo)).toBeNull();
    expect(cells.network('nope' as keyof Network)).toBeNull();
    expect(cells.geo('nope' as keyof Geo, 'json')).toBeNull();
    expect(cells.network('nope' as keyof Network, 'json')).toBeNull();
  });
});

describe('coordinateCell', () => {
  const cellOf = (x: number): string => bytesOf((out, at) => coordinateCell(x, out, at));
  const textOf = (x: number): string => {
    const v = coordinateNumber(x);
    return v === null ? '' : String(v);
  };

  it('writes String(coordinate(x)) for every float32, coordinates or not', () => {
    fc.assert(
      fc.property(fc.oneof(fc.float(), fc.float({ min: -180, max: 180, noNaN: true }), fc.integer({ min: -1_800_000, max: 1_800_000 }).map((n) => n / 1e4)), (v) => {
        const x = Math.fround(v);
        expect(cellOf(x)).toBe(textOf(x));
      }),
      { numRuns: 5000 },
    );
  });

  it('is right at the edges: zero of either sign, one step from zero, the poles, beyond the fast path, not a number', () => {
    for (const v of [0, -0, 1e-4, -1e-4, 4e-5, -4e-5, 5e-5, -5e-5, 90, -90, 180, -180, 0.1, -0.1, 99_999.99, 1e5, -1e5, 3.4e38, -3.4e38, Infinity, -Infinity, NaN]) {
      const x = Math.fround(v);
      expect(cellOf(x)).toBe(textOf(x));
    }
  });
});

describe('isoDay', () => {
  it('is the ISO date of the day (the Date text), for every day number', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 0, max: 2_932_896 }), fc.integer({ min: 2_932_897, max: 100_000_000 })), (day) => {
        expect(isoDay(day)).toBe(new Date(day * DAY).toISOString().slice(0, 10));
      }),
      { numRuns: 2000 },
    );
  });

  it('is right at the edges: the epoch, leap days, the last plain year', () => {
    for (const day of [0, 59, 789, 11_016, 11_017, 2_932_896, 2_932_897]) {
      expect(isoDay(day)).toBe(new Date(day * DAY).toISOString().slice(0, 10));
    }
  });
});
