/**
 * The exporter's options, on the test snapshot (model.ts): for any choice of
 * fields and signals, every probed address reads back from the MMDB file as
 * `check()` says for those fields (expected.ts), and the CSV has a row for
 * exactly the addresses that have a record. Exports are deterministic, and
 * bad options are typed errors.
 */
import fc from 'fast-check';
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { loadSnapshot } from '@ipintel/core';
import { bigIntToText, encodeSnapshot } from '@ipintel/core/writer';
import { probeAddresses } from '@ipintel/testkit';
import { exportableFields, exportCsv, exportMmdb, ExportError, sampleResult, signalNames } from '../src/index.js';
import { expectedRecord } from './expected.js';
import { testModel } from './model.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 40) });

const { model, v4, v6 } = testModel(7);
const intel = loadSnapshot(encodeSnapshot(model));
const ALL = exportableFields(sampleResult(intel)).map((f) => f.name);
const SIGNALS = signalNames(sampleResult(intel));
const PROBES = [
  ...probeAddresses(32, v4).map((x) => bigIntToText(4, x)),
  ...probeAddresses(128, v6)
    .filter((x) => x >> 32n !== 0n) // ::/96 is the IPv4 tree of an MMDB
    .map((x) => bigIntToText(6, x)),
];

/**
 * What `f` throws, as text: `code: message` for an ExportError, else `Name: message` (which no
 * test's code pattern matches, so a TypeError fails it), or 'no error'.
 */
function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return e instanceof ExportError ? `${e.code}: ${e.message}` : `${(e as Error).name}: ${(e as Error).message}`;
  }
  return 'no error';
}

describe('export options', () => {
  it('any fields and signals: the MMDB answers what check() says for them', () => {
    fc.assert(
      fc.property(
        fc.subarray(ALL, { minLength: 1 }),
        fc.option(fc.subarray(SIGNALS, { minLength: 1 }), { nil: null }),
        (fields, signals) => {
          const m = exportMmdb(intel, { fields, ...(signals === null ? {} : { signals }) });
          const reader = new Reader<Record<string, unknown>>(Buffer.from(m.bytes));
          for (const ip of PROBES) expect(reader.get(ip), ip).toEqual(expectedRecord(intel.check(ip), fields, signals));
        },
      ),
    );
  });

  it('fewer fields merge more ranges: one country field needs fewer records and ranges than all fields', () => {
    const all = exportMmdb(intel);
    const one = exportMmdb(intel, { fields: ['geo.country_code'] });
    expect(one.records).toBeLessThan(all.records);
    expect(one.ranges.v4).toBeLessThan(all.ranges.v4);
    expect(one.bytes.length).toBeLessThan(all.bytes.length);
  });

  it('the CSV has rows for exactly the addresses with a record, in the order of the fields asked', () => {
    let csv = '';
    exportCsv(intel, { fields: ['risk.level', 'geo.city'], signals: ['is_tor'] }, (s) => (csv += s));
    const lines = csv.trimEnd().split('\n');
    expect(lines[0]).toBe('cidr,version,first_ip,last_ip,first_int,last_int,risk.level,geo.city');
    // Tor leaves only, each row carries the leaf's level and city.
    for (const line of lines.slice(1)) expect(intel.check(line.split(',')[2]!).signals.is_tor, line).toBe(true);
    expect(lines.length).toBeGreaterThan(1);
  });

  it('is deterministic: the same snapshot and options give the same bytes', () => {
    const options = { fields: ALL.filter((a) => a.startsWith('geo.') || a === 'risk.score'), signals: ['is_vpn', 'is_datacenter'] };
    expect(Buffer.from(exportMmdb(intel, options).bytes).equals(Buffer.from(exportMmdb(intel, options).bytes))).toBe(true);
    expect(Buffer.from(exportMmdb(intel).bytes).equals(Buffer.from(exportMmdb(intel).bytes))).toBe(true);
  });

  it('bad options are typed errors naming what is valid', () => {
    expect(code(() => exportMmdb(intel, { fields: ['geo.planet'] }))).toMatch(/^unknown_field: .*geo\.country_code/);
    expect(code(() => exportMmdb(intel, { fields: [] }))).toMatch(/^unknown_field/);
    expect(code(() => exportMmdb(intel, { signals: ['is_evil'] }))).toMatch(/^unknown_signal: .*is_tor/);
    expect(code(() => exportMmdb(intel, { signals: ['connection_type'] }))).toMatch(/^unknown_signal/);
    expect(code(() => exportMmdb(intel, 'x' as never))).toMatch(/^invalid_option/);
  });

  it('options of the wrong type are invalid_option naming the option, not a TypeError or a field named after one letter', () => {
    // A string is not a list: "geo.country_code" was read as the fields "g", "e", "o", ...
    expect(code(() => exportMmdb(intel, { fields: 'geo.country_code' as never }))).toMatch(/^invalid_option: .*fields/);
    expect(code(() => exportMmdb(intel, { signals: 'is_tor' as never }))).toMatch(/^invalid_option: .*signals/);
    expect(code(() => exportMmdb(intel, { fields: null as never }))).toMatch(/^invalid_option: .*fields/);
    expect(code(() => exportMmdb(intel, { signals: null as never }))).toMatch(/^invalid_option: .*signals/);
    expect(code(() => exportMmdb(intel, { fields: ['geo.country_code', 42 as never] }))).toMatch(/^invalid_option: .*fields/);
    expect(code(() => exportCsv(intel, { signals: [{}] as never }, () => undefined))).toMatch(/^invalid_option: .*signals/);
    // A hole is not a name (`every` skipped it: "unknown field undefined").
    // eslint-disable-next-line no-sparse-arrays
    expect(code(() => exportMmdb(intel, { fields: [, 'geo.city'] as never }))).toMatch(/^invalid_option: .*fields/);
  });

  it('an intel that is not an IpIntel, a sample that is not a result, or a CSV write that is not a function, is invalid_option, not a TypeError', () => {
    for (const bad of [null, undefined, {}, 42]) {
      expect(code(() => exportMmdb(bad as never))).toMatch(/^invalid_option: intel/);
      expect(code(() => exportCsv(bad as never, {}, () => undefined))).toMatch(/^invalid_option: intel/);
      expect(code(() => sampleResult(bad as never))).toMatch(/^invalid_option: intel/);
    }
    let calls = 0;
    const nothing = (): void => {
      calls++;
    };
    for (const bad of [null, undefined, 42, 'geo', {}, { signals: null }]) {
      expect(code(() => exportableFields(bad as never)), JSON.stringify(bad)).toMatch(/^invalid_option: exportableFields/);
      expect(code(() => signalNames(bad as never)), JSON.stringify(bad)).toMatch(/^invalid_option: signalNames/);
    }
    expect(code(() => exportCsv(intel, {}, 42 as never))).toMatch(/^invalid_option: write/);
    expect(code(() => exportCsv(intel, {}, undefined as never))).toMatch(/^invalid_option: write/);
    exportCsv(intel, {}, nothing);
    expect(calls).toBeGreaterThan(0);
  });

  it('a name list is read once: the names checked are the names exported (a getter that changes its answer)', () => {
    // An array whose items answer 'is_tor' while checked and 'bogus' after: the export kept
    // ['bogus'] unchecked, so no address had a record.
    const shifty = (first: string, later: string, reads: number): string[] => {
      let n = 0;
      return new Proxy([first], { get: (t, k, r) => (k === '0' ? (n++ < reads ? first : later) : Reflect.get(t, k, r)) });
    };
    const want = exportMmdb(intel, { signals: ['is_tor'] });
    expect(want.records).toBeGreaterThan(0);
    const got = exportMmdb(intel, { signals: shifty('is_tor', 'bogus', 1) });
    expect(got.records).toBe(want.records);
    expect(Buffer.from(got.bytes).equals(Buffer.from(want.bytes))).toBe(true);
    const fields = exportMmdb(intel, { fields: shifty('geo.city', 'geo.country', 1) });
    expect(Buffer.from(fields.bytes).equals(Buffer.from(exportMmdb(intel, { fields: ['geo.city'] }).bytes))).toBe(true);
  });
});
