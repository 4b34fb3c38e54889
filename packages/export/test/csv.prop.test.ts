/**
 * CSV rows parse back (RFC 4180, with an independent parser here) to what
 * `check()` says: for any choice of fields and signals on the test snapshot
 * (model.ts, whose texts hold commas, quotes, a newline and non-ASCII
 * letters), the first and the last address of every row answer the row's
 * cells; the rows tile the addresses that have a record, in order, without
 * overlap; and every probed address lies in a row exactly when it has a
 * record.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSnapshot, parseAddress } from '@ipintel/core';
import { addressToBigInt, bigIntToText, encodeSnapshot } from '@ipintel/core/writer';
import { probeAddresses } from '@ipintel/testkit';
import { CSV_RANGE_COLUMNS, exportableFields, exportCsv, sampleResult, signalNames } from '../src/index.js';
import { expectedRecord } from './expected.js';
import { testModel } from './model.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 25) });

const { model, v4, v6 } = testModel(11);
const intel = loadSnapshot(encodeSnapshot(model));
const ALL = exportableFields(sampleResult(intel)).map((f) => f.name);
const SIGNALS = signalNames(sampleResult(intel));

/** RFC 4180 records: quoted cells may hold `,`, `""` and newlines; an unquoted empty cell is null. */
function parseCsv(text: string): (string | null)[][] {
  const rows: (string | null)[][] = [];
  let row: (string | null)[] = [];
  let i = 0;
  while (i < text.length) {
    let cell: string | null;
    if (text[i] === '"') {
      let s = '';
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) throw new Error('unterminated quote');
        s += text.slice(i, q);
        i = q + 1;
        if (text[i] === '"') {
          s += '"';
          i++;
        } else break;
      }
      cell = s;
    } else {
      let j = i;
      while (j < text.length && text[j] !== ',' && text[j] !== '\n') j++;
      const s = text.slice(i, j);
      if (s.includes('"') || s.includes('\r')) throw new Error(`unquoted cell with a quote or CR: ${s}`);
      cell = s === '' ? null : s;
      i = j;
    }
    row.push(cell);
    if (text[i] === ',') i++;
    else if (text[i] === '\n' || i >= text.length) {
      rows.push(row);
      row = [];
      i++;
    } else throw new Error(`garbage after a cell at ${i}`);
  }
  return rows;
}

/** A value as its cell reads back: lists joined with `;`, numbers and booleans as text. */
function cellOf(v: string | number | boolean | readonly unknown[] | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.join(';');
  return String(v);
}

describe('CSV export, parsed back', () => {
  it('for any fields and signals, each row is a CIDR block whose first and last addresses answer its cells', () => {
    const probes = [...probeAddresses(32, v4).map((x) => ({ v: 4, x })), ...probeAddresses(128, v6).map((x) => ({ v: 6, x }))];
    fc.assert(
      fc.property(fc.subarray(ALL, { minLength: 1 }), fc.option(fc.subarray(SIGNALS, { minLength: 1 }), { nil: null }), (fields, signals) => {
        let text = '';
        const summary = exportCsv(intel, { fields, ...(signals === null ? {} : { signals }) }, (s) => (text += s));
        const [header, ...rows] = parseCsv(text);
        expect(header).toEqual([...CSV_RANGE_COLUMNS, ...fields]);
        expect(rows.length).toBe(summary.rows);
        const covered: Record<string, [bigint, bigint][]> = { '4': [], '6': [] };
        for (const row of rows) {
          expect(row.length).toBe(header!.length);
          const [cidr, version, first, last, firstInt, lastInt] = row as string[];
          const [base, len] = cidr!.split('/') as [string, string];
          const bits = version === '4' ? 32 : 128;
          const start = addressToBigInt(parseAddress(base));
          const end = start + (1n << BigInt(bits - Number(len))) - 1n;
          expect([first, last, firstInt, lastInt]).toEqual([bigIntToText(bits === 32 ? 4 : 6, start), bigIntToText(bits === 32 ? 4 : 6, end), String(start), String(end)]);
          const spans = covered[version!]!;
          if (spans.length > 0) expect(start > spans[spans.length - 1]![1], cidr).toBe(true);
          spans.push([start, end]);
          for (const ip of [first!, last!]) {
            const want = expectedRecord(intel.check(ip), fields, signals);
            expect(want, ip).not.toBeNull();
            const got = Object.fromEntries(fields.map((f, k) => [f, row[6 + k]]));
            expect(got, ip).toEqual(Object.fromEntries(fields.map((f) => {
              const [group, k] = f.split('.') as [string, string];
              return [f, cellOf(want![group]?.[k] as Parameters<typeof cellOf>[0])];
            })));
          }
        }
        // Every probe lies in a row exactly when it has a record (IPv4-mapped space is IPv4's: no IPv6 rows there).
        for (const { v, x } of probes) {
          const ip = bigIntToText(v as 4 | 6, x);
          const a = parseAddress(ip);
          const n = addressToBigInt(a);
          const inRow = covered[String(a.version)]!.some(([s, e]) => s <= n && n <= e);
          expect(inRow, ip).toBe(expectedRecord(intel.check(ip), fields, signals) !== null);
        }
      }),
    );
  });
});
