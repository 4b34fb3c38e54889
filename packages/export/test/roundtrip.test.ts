/**
 * The default snapshot (the @ipintel/data package's, built by `pnpm test`)
 * exported as MMDB and read back by two independent readers: mmdb-lib (the
 * `maxmind` package) for 100,000 addresses plus every golden fixture
 * address, and libmaxminddb's `mmdblookup` for a sample of 200. Each answer
 * equals, field by field, what `check()` says for the address (expected.ts).
 *
 * Addresses: a third uniformly random IPv4, a third at the edges of the
 * snapshot's own ranges (first, last and a random address inside, both
 * families), the rest random IPv6 in 2000::/3 and IPv4-mapped IPv6; plus
 * the golden cases of fixtures/golden/cases.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Reader } from 'maxmind';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSnapshotPath, openSync, type IpIntel } from '@ipintel/core';
import { flatRanges } from '@ipintel/core/internal';
import { bigIntToText } from '@ipintel/core/writer';
import { fixturePath, prng, random128, randomU32, tempDir } from '@ipintel/testkit';
import { exportableFields, exportToFile, NOT_EXPORTED, sampleResult, type ExportSummary } from '../src/index.js';
import { allResultFields, expectedRecord } from './expected.js';
import { asPrinted, mmdblookup, mmdbMetadata } from './mmdblookup.js';

const { dir, cleanup } = tempDir('ipintel-export-');
const file = join(dir, 'world.mmdb');
let intel: IpIntel;
let reader: Reader<Record<string, unknown>>;
let summary: ExportSummary;
let fields: string[];

const golden = (JSON.parse(readFileSync(fixturePath('golden/cases.json'), 'utf8')) as { cases: { ip: string }[] }).cases.map((c) => c.ip);

beforeAll(() => {
  intel = openSync(defaultSnapshotPath());
  summary = exportToFile(intel, 'mmdb', file);
  reader = new Reader(readFileSync(file));
  fields = exportableFields(sampleResult(intel)).map((f) => f.name);
}, 900_000);
afterAll(cleanup);

/** `n` addresses at the edges of (and inside) random ranges of the snapshot. */
function rangeEdges(version: 4 | 6, n: number, rnd: () => number): string[] {
  const r = flatRanges(intel, version);
  const start = (i: number): bigint => {
    let x = 0n;
    for (let k = 0; k < r.words; k++) x = (x << 32n) | BigInt(r.starts[i * r.words + k]!);
    return x;
  };
  const max = (1n << BigInt(32 * r.words)) - 1n;
  const out: string[] = [];
  while (out.length < n) {
    const i = Math.floor(rnd() * r.leaves.length);
    const first = start(i);
    const last = i + 1 < r.leaves.length ? start(i + 1) - 1n : max;
    const inside = first + ((last - first) * BigInt(Math.floor(rnd() * 1e6))) / 1000000n;
    // ::/96 is the IPv4 tree in every MMDB (tree.ts): its IPv6 answers are not exported.
    for (const x of [first, last, inside]) if (version === 4 || x >> 32n !== 0n) out.push(bigIntToText(version, x));
  }
  return out.slice(0, n);
}

function addresses(): string[] {
  const rnd = prng(2026);
  const v4 = Array.from({ length: 33_000 }, () => bigIntToText(4, BigInt(randomU32(rnd))));
  const v6 = Array.from({ length: 17_000 }, () => bigIntToText(6, (random128(rnd) & ((1n << 125n) - 1n)) | (1n << 125n)));
  const mapped = Array.from({ length: 8000 }, () => `::ffff:${bigIntToText(4, BigInt(randomU32(rnd)))}`);
  return [...v4, ...rangeEdges(4, 21_000, rnd), ...rangeEdges(6, 21_000, rnd), ...v6, ...mapped].slice(0, 100_000);
}

describe('MMDB export of the default snapshot', () => {
  it('exports every field of the result but the documented four', () => {
    const sample = sampleResult(intel);
    expect(fields).toEqual(allResultFields(sample).filter((f) => !NOT_EXPORTED.includes(f)));
    expect([...NOT_EXPORTED].sort()).toEqual(['attribution', 'ip', 'network.allocation_age_days', 'version']);
    expect(summary.bytes).toBe(readFileSync(file).length);
  });

  it('mmdb-lib reads back 100,000 addresses and every golden address as check() answers them', () => {
    const ips = [...addresses(), ...golden];
    expect(ips.length).toBe(100_000 + golden.length);
    let withData = 0;
    for (const ip of ips) {
      const want = expectedRecord(intel.check(ip), fields);
      const got = reader.get(ip);
      if (got !== null) withData++;
      if (JSON.stringify(got) !== JSON.stringify(want)) expect(got, ip).toEqual(want);
    }
    // The full field set gives every address a record (network.is_bogon is never null).
    expect(withData).toBe(ips.length);
  });

  it('IPv4 is also reachable at ::ffff:0:0/96 and, as in every MMDB, at ::/96', () => {
    const rnd = prng(7);
    for (let i = 0; i < 2000; i++) {
      const v4 = bigIntToText(4, BigInt(randomU32(rnd)));
      const want = reader.get(v4);
      expect(reader.get(`::ffff:${v4}`), v4).toEqual(want);
      expect(reader.get(`::${v4}`), v4).toEqual(want);
    }
  });

  it('mmdblookup (libmaxminddb) reads a sample of 200 addresses as check() answers them', () => {
    const rnd = prng(99);
    const ips = addresses();
    const sample = [...golden.slice(0, 40), ...Array.from({ length: 200 - Math.min(40, golden.length) }, () => ips[Math.floor(rnd() * ips.length)]!)];
    expect(sample.length).toBe(200);
    for (const ip of sample) {
      const want = expectedRecord(intel.check(ip), fields);
      expect(mmdblookup(file, ip), ip).toEqual(asPrinted(want));
    }
  });

  it('carries metadata naming the sources and the build date, read by both readers', () => {
    const info = intel.info;
    const epoch = Math.floor(Date.parse(info.build_date) / 1000);
    expect(reader.metadata).toMatchObject({ databaseType: 'ipintel', ipVersion: 6, languages: ['en'], binaryFormatMajorVersion: 2, binaryFormatMinorVersion: 0 });
    expect(reader.metadata.buildEpoch.getTime()).toBe(epoch * 1000);
    expect(reader.metadata.nodeCount).toBe(summary.nodes);
    expect(reader.metadata.recordSize).toBe(summary.recordSize);
    const description = (reader.metadata.description as unknown as Record<string, string>)['en']!;
    expect(description).toContain(info.build_date);
    for (const s of info.sources) expect(description).toContain(`${s.publisher} (${s.id}`);
    expect(description).toContain(info.attribution_url);
    const m = mmdbMetadata(file, '8.8.8.8');
    expect(m).toMatchObject({ 'Node count': String(summary.nodes), 'Record size': `${summary.recordSize} bits`, 'IP version': 'IPv6', 'Binary format': '2.0', Type: 'ipintel', Languages: 'en' });
    expect(m['Build epoch']).toMatch(new RegExp(`^${epoch} `));
    expect(m['Description']).toBe(description);
    // The record size is the smallest that holds the largest record value: node count + 16 + data size.
    const bytes = readFileSync(file);
    const dataSize = bytes.lastIndexOf(Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1')) - (summary.nodes! * summary.recordSize!) / 4 - 16;
    const max = summary.nodes! + 16 + dataSize;
    expect(max).toBeLessThan(2 ** summary.recordSize!);
    if (summary.recordSize! > 24) expect(max).toBeGreaterThanOrEqual(2 ** (summary.recordSize! - 4));
  });
});
