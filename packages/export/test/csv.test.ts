/**
 * CSV ranges, loaded into DuckDB (the npm package, no extension) and joined
 * against a table of addresses on the integer columns (a range join), give
 * for every address what `check()` says. Two snapshots: a small one whose
 * values test quoting, null and empty text, IPv6 boundaries finer than /64
 * and the IPv4-mapped block (model.ts), with every field; and the default
 * world snapshot cut down with a signal filter and a few fields.
 *
 * Every row is one CIDR block whose first/last address and integers agree
 * with its prefix, in address order, without overlap: what ClickHouse's
 * ip_trie needs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSnapshotPath, loadSnapshot, openSync, parseAddress, type IpIntel } from '@ipintel/core';
import { addressToBigInt, bigIntToText, encodeSnapshot, type PrefixEntry } from '@ipintel/core/writer';
import { prng, probeAddresses, random128, randomU32, tempDir } from '@ipintel/testkit';
import { CSV_RANGE_COLUMNS, exportableFields, exportToFile, sampleResult } from '../src/index.js';
import { testModel } from './model.js';

const { dir, cleanup } = tempDir('ipintel-csv-');
let db: DuckDBInstance;
let con: DuckDBConnection;
beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:');
  con = await db.connect();
});
afterAll(() => {
  con.closeSync();
  db.closeSync();
  cleanup();
});

/** A value as the CSV writes it, read back as text by DuckDB (null: an empty cell). */
function cellText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return (v as string[]).join(';');
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** check()'s answer for the chosen fields, as text, or null when the address has no row. */
function expectedRow(intel: IpIntel, ip: string, fields: readonly string[], signals: readonly string[] | null): Record<string, string | null> | null {
  const r = intel.check(ip) as unknown as Record<string, Record<string, unknown>>;
  if (signals !== null && !signals.some((s) => r['signals']![s] === true)) return null;
  const row = Object.fromEntries(fields.map((f) => {
    const [g, k] = f.split('.') as [string, string];
    return [f, cellText(r[g]![k])];
  }));
  return Object.values(row).every((v) => v === null) ? null : row;
}

/** Loads the CSV and a table of addresses, range-joins them; returns the fields per address (null: no row). */
async function joinAddresses(csv: string, ips: readonly string[], fields: readonly string[]): Promise<Map<string, Record<string, string | null> | null>> {
  const addrs = join(dir, 'addrs.csv');
  // Each address by check()'s canonical form: an IPv4-mapped address is looked up as IPv4.
  writeFileSync(addrs, `ip,version,n\n${ips.map((ip) => {
    const a = parseAddress(ip);
    return `${ip},${a.version},${addressToBigInt(a)}`;
  }).join('\n')}\n`);
  await con.run(`CREATE OR REPLACE TABLE ranges AS SELECT * FROM read_csv('${csv}', header = true, all_varchar = true, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false)`);
  await con.run(`CREATE OR REPLACE TABLE addrs AS SELECT ip, version, n::UHUGEINT AS n FROM read_csv('${addrs}', header = true, all_varchar = true, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false)`);
  const cols = fields.map((f) => `r."${f}"`).join(', ');
  const result = await con.runAndReadAll(
    `SELECT a.ip, r.cidr, ${cols} FROM addrs a LEFT JOIN ranges r
       ON a.version = r.version AND a.n BETWEEN r.first_int::UHUGEINT AND r.last_int::UHUGEINT`,
  );
  const out = new Map<string, Record<string, string | null> | null>();
  for (const row of result.getRowObjectsJS()) {
    const ip = row['ip'] as string;
    expect(out.has(ip), `${ip} matched two rows`).toBe(false);
    out.set(ip, row['cidr'] === null ? null : Object.fromEntries(fields.map((f) => [f, row[f] as string | null])));
  }
  return out;
}

/** Joins `ips` against the CSV and expects check()'s answer for each; returns how many have a row. */
async function expectJoin(intel: IpIntel, csv: string, ips: readonly string[], fields: readonly string[], signals: readonly string[] | null): Promise<number> {
  const got = await joinAddresses(csv, ips, fields);
  let hits = 0;
  for (const ip of ips) {
    const want = expectedRow(intel, ip, fields, signals);
    if (want !== null) hits++;
    expect(got.get(ip), ip).toEqual(want);
  }
  return hits;
}

/** Every row is a CIDR block with consistent first/last/integers; blocks increase without overlap per family. */
async function checkRows(csv: string): Promise<number> {
  const result = await con.runAndReadAll(`SELECT cidr, version, first_ip, last_ip, first_int, last_int FROM read_csv('${csv}', header = true, all_varchar = true, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false)`);
  const last: Record<string, bigint> = { '4': -1n, '6': -1n };
  let n = 0;
  for (const row of result.getRowsJS() as string[][]) {
    const [cidr, version, first, lastIp, firstInt, lastInt] = row as [string, string, string, string, string, string];
    const [base, len] = cidr.split('/') as [string, string];
    const a = parseAddress(base);
    const bits = a.version === 4 ? 32 : 128;
    const start = addressToBigInt(a);
    const end = start + (1n << BigInt(bits - Number(len))) - 1n;
    expect(String(a.version)).toBe(version);
    expect(start % (1n << BigInt(bits - Number(len))), cidr).toBe(0n);
    expect([first, lastIp, firstInt, lastInt]).toEqual([base, bigIntToText(a.version, end), String(start), String(end)]);
    expect(start > last[version]!, `${cidr} overlaps or precedes the row before`).toBe(true);
    last[version] = end;
    if (version === '6') expect(start >> 32n === 0xffffn, `${cidr} is inside ::ffff:0:0/96`).toBe(false);
    n++;
  }
  return n;
}

describe('CSV export, joined in DuckDB', () => {
  it('the test snapshot, every field: each address joins to what check() says', async () => {
    const { model, v4, v6 } = testModel();
    const intel = loadSnapshot(encodeSnapshot(model));
    const csv = join(dir, 'small.csv');
    const summary = exportToFile(intel, 'csv', csv);
    const fields = exportableFields(sampleResult(intel)).map((f) => f.name);
    expect(readFileSync(csv, 'utf8').split('\n')[0]).toBe([...CSV_RANGE_COLUMNS, ...fields].join(','));
    expect(await checkRows(csv)).toBe(summary.rows);
    const rnd = prng(5);
    const edge = (bits: number, p: readonly PrefixEntry<number>[]) => probeAddresses(bits, p).map((x) => bigIntToText(bits === 32 ? 4 : 6, x));
    const ips = [
      ...edge(32, v4),
      ...edge(128, v6),
      ...Array.from({ length: 3000 }, () => bigIntToText(4, BigInt(randomU32(rnd)))),
      ...Array.from({ length: 3000 }, () => bigIntToText(6, random128(rnd))),
      ...['::ffff:1.2.3.4', '::1.2.3.4', '::1.2.3.5', '2002:102:304::1', '::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '0.0.0.0', '255.255.255.255'],
    ];
    const unique = [...new Set(ips)];
    expect(await expectJoin(intel, csv, unique, fields, null)).toBeGreaterThan(unique.length / 2);
  });

  it('the world snapshot, three fields and only Tor, VPN or proxy addresses: each address joins to what check() says', async () => {
    const intel = openSync(defaultSnapshotPath());
    const csv = join(dir, 'world.csv');
    const fields = ['geo.country_code', 'network.asn', 'signals.is_tor'];
    const signals = ['is_tor', 'is_vpn', 'is_proxy'];
    const summary = exportToFile(intel, 'csv', csv, { fields, signals });
    expect(readFileSync(csv, 'utf8').split('\n', 1)[0]).toBe([...CSV_RANGE_COLUMNS, ...fields].join(','));
    expect(await checkRows(csv)).toBe(summary.rows);
    // Addresses from the file itself (each row's first and last) and random ones (mostly without a row).
    const rows = (await con.runAndReadAll(`SELECT first_ip, last_ip FROM read_csv('${csv}', header = true, all_varchar = true, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false) USING SAMPLE 3000 ROWS (reservoir, 11)`)).getRowsJS() as string[][];
    const rnd = prng(8);
    const ips = [...new Set([...rows.flat(), ...Array.from({ length: 5000 }, () => bigIntToText(4, BigInt(randomU32(rnd))))])];
    expect(await expectJoin(intel, csv, ips, fields, signals)).toBeGreaterThanOrEqual(rows.length);
  }, 600_000);
});
