import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  BGPTOOLS_FEEDS,
  BGPTOOLS_TAGS,
  decodeTagName,
  forEachCsvRecord,
  parseAsText,
  parseBgpToolsAsns,
  parseBgpToolsTag,
} from '../../src/feeds/bgptools.js';
import { FeedError } from '../../src/feeds/types.js';

const FIXTURES = fileURLToPath(new URL('../../../../fixtures/feeds/', import.meta.url));
const FEEDS = process.env.IPINTEL_FEEDS ?? fileURLToPath(new URL('../../../../../shared/feeds', import.meta.url));
const fixture = (rel: string): Uint8Array => readFileSync(FIXTURES + rel);
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

function csv(text: string): { records: [number, string[]][]; errors: [number, string][] } {
  const records: [number, string[]][] = [];
  const errors: [number, string][] = [];
  forEachCsvRecord(
    text,
    (f, line) => records.push([line, f]),
    (line, message) => errors.push([line, message]),
  );
  return { records, errors };
}

describe('CSV reader', () => {
  it('reads quoted fields with commas, quotes and line breaks', () => {
    expect(csv('a,"b, c","d ""e"""\r\n"multi\r\nline",x\n\n,\nlast')).toEqual({
      records: [
        [1, ['a', 'b, c', 'd "e"']],
        [2, ['multi\r\nline', 'x']],
        [5, ['', '']],
        [6, ['last']],
      ],
      errors: [],
    });
  });
  it('reports malformed records and resumes at the next line', () => {
    expect(csv('a,"b"c,d\ne,f"g\n"open,h\nok,1')).toEqual({
      records: [[4, ['ok', '1']]],
      errors: [
        [1, 'text after a closing quote'],
        [2, 'quote inside an unquoted field'],
        [3, 'unterminated quoted field'],
      ],
    });
  });
  it('parses AS<n>', () => {
    expect(parseAsText('AS13335')).toBe(13335);
    expect(parseAsText('AS4294967295')).toBe(4294967295);
    for (const bad of ['13335', 'AS', 'as1', 'AS01', 'AS4294967296', 'AS 1']) expect(parseAsText(bad)).toBe(-1);
  });
  it('decodes the double-encoded tag names', () => {
    expect(decodeTagName('Google LLC')).toBe('Google LLC');
    expect(decodeTagName('"""Cloudflare", Inc."')).toBe('Cloudflare, Inc.');
    expect(decodeTagName('"""Taiwan Fixed Network", Telco and Network Service Provider."')).toBe(
      'Taiwan Fixed Network, Telco and Network Service Provider.',
    );
    expect(decodeTagName('"OOO """"NI"""""')).toBe('OOO "NI"');
    expect(decodeTagName('"""""EDGEAM"""" LLC"')).toBe('"EDGEAM" LLC');
    expect(decodeTagName('"Join-stock company """"Internet Exchange""""MSK-IX"""""')).toBe('Join-stock company "Internet Exchange"MSK-IX"');
    expect(decodeTagName('"""""Domain names registrar REG.RU""", Ltd"')).toBe('"Domain names registrar REG.RU", Ltd');
    expect(decodeTagName('"""UGAM SOLUTIONS PVT LTD","')).toBe('UGAM SOLUTIONS PVT LTD,');
    for (const bad of ['"open', '"a"b', 'a"b', '"""A", B']) expect(decodeTagName(bad)).toBeNull();
  });
});

describe('bgp.tools asns.csv fixture', () => {
  const f = parseBgpToolsAsns(fixture('bgp/bgptools/asns.csv.gz'), { dataDate: '2026-05-31' });
  it('reads every AS with name, class and country', () => {
    expect(Object.fromEntries(f.asns)).toEqual({
      10: { name: 'CSNET Coordination and Information Center (CSNET-CIC)', class: 'Unknown', cc: 'US' },
      13335: { name: 'Cloudflare, Inc.', class: 'Content', cc: 'US' },
      15169: { name: 'Google LLC', class: 'Content', cc: 'US' },
      12294: { name: 'PrJSC "VF UKRAINE"', class: 'Unknown', cc: 'UA' },
      262170: { name: 'Visualhosting.net', class: 'Unknown', cc: 'AR' },
      3320: { name: 'Deutsche Telekom AG', class: 'Eyeball', cc: 'DE' },
      174: { name: 'Cogent Communications, LLC', class: 'T1', cc: 'US' },
      64496: { name: 'Private Documentation ASN', class: 'Unknown', cc: null },
    });
    expect(f.source).toMatchObject({ id: 'bgptools-asns', data_date: '2026-05-31', entries: 8, attribution_required: true });
  });
  it('reports each malformed record (line numbers count the line break inside a name)', () => {
    expect(f.rejected).toEqual([
      { feed: 'bgptools-asns', line: 11, message: 'bad ASN "ASX1"' },
      { feed: 'bgptools-asns', line: 12, message: 'expected 4 fields, got 5: "AS1,Too,Many,Fields,US"' },
      { feed: 'bgptools-asns', line: 13, message: 'AS13335 listed again; first row kept' },
    ]);
  });
  it('refuses a file without the header', () => {
    expect(() => parseBgpToolsAsns(enc('AS1,x,Unknown,US\n'))).toThrow(FeedError);
    expect(() => parseBgpToolsAsns(enc(''))).toThrow('bgptools-asns: empty file');
  });
});

describe('bgp.tools tag fixtures', () => {
  const tags = Object.fromEntries(BGPTOOLS_TAGS.map((t) => [t, parseBgpToolsTag(fixture(`bgp/bgptools/tags-${t}.csv`), t)]));
  it('reads ASN -> name, undoing the double quoting', () => {
    const names = Object.fromEntries(Object.entries(tags).map(([t, f]) => [t, Object.fromEntries(f.asns)]));
    expect(names).toEqual({
      mobile: { 577: 'Bell Canada', 21928: 'T-Mobile USA, Inc.', 3320: 'Deutsche Telekom AG' },
      satnet: { 800: 'OneWeb', 14593: 'Space Exploration Technologies, Corporation' },
      dsl: { 3320: 'Deutsche Telekom AG', 6849: 'JSC "Ukrtelecom"', 6810: '"Bezeq"- THE ISRAEL TELECOMMUNICATION CORP. LTD.' },
      vpsh: { 14061: 'DigitalOcean, LLC', 16276: 'OVH SAS', 24940: 'Hetzner Online GmbH' },
      cdn: { 13335: 'Cloudflare, Inc.', 54113: 'Fastly, Inc.' },
      anycast: { 13335: 'Cloudflare, Inc.', 15169: 'Google LLC' },
      tor: { 3: 'Massachusetts Institute of Technology', 60729: 'Stiftung Erneuerbare Freiheit' },
      vpn: { 9009: 'M247 Europe SRL', 212238: 'Datacamp Limited' },
    });
    expect(tags.mobile!.source).toMatchObject({ id: 'bgptools-tag-mobile', url: 'https://bgp.tools/tags/mobile.csv', evidence: 'inferred', entries: 3 });
  });
  it('reports the malformed line', () => {
    expect(tags.mobile!.rejected).toEqual([
      { feed: 'bgptools-tag-mobile', line: 3, message: 'expected AS<n>,name: "22394,Cellco Partnership DBA Verizon Wireless"' },
    ]);
    for (const t of BGPTOOLS_TAGS.filter((x) => x !== 'mobile')) expect(tags[t]!.rejected).toEqual([]);
    const bad = parseBgpToolsTag(enc('AS1,"open\nAS2,x\nAS2,y\n'), 'x');
    expect(bad.rejected).toEqual([
      { feed: 'bgptools-tag-x', line: 1, message: 'bad CSV quoting in name: "\\"open"' },
      { feed: 'bgptools-tag-x', line: 3, message: 'AS2 listed again; first line kept' },
    ]);
  });
  it('registry parses every fixture', () => {
    expect(BGPTOOLS_FEEDS.map((s) => s.id)).toEqual(['bgptools-asns', ...BGPTOOLS_TAGS.map((t) => `bgptools-tag-${t}`)]);
    for (const spec of BGPTOOLS_FEEDS) {
      const out = spec.parse(fixture(spec.path));
      expect(out.source.id).toBe(spec.id);
      expect(out.source.data_date).toBe('2026-05-31');
      expect(spec.kind).toBe('asn');
    }
  });
});

const haveFeeds = existsSync(FEEDS);
if (!haveFeeds) console.log(`bgp.tools full-size tests skipped: no real feeds at ${FEEDS} (set IPINTEL_FEEDS)`);

describe.skipIf(!haveFeeds)('real bgp.tools files (full size)', () => {
  it('asns.csv: 120,793 ASNs, names with line breaks read whole', () => {
    const data = readFileSync(`${FEEDS}/bgp/bgptools/asns.csv.gz`);
    const t0 = performance.now();
    const f = parseBgpToolsAsns(data);
    console.log(`bgptools asns.csv parse: ${(performance.now() - t0).toFixed(0)} ms`);
    expect(f.rejected).toEqual([]);
    expect(f.asns.size).toBe(120_793);
    expect(f.asns.get(13335)).toEqual({ name: 'Cloudflare, Inc.', class: 'Content', cc: 'US' });
    expect(f.asns.get(262170)).toEqual({ name: 'Visualhosting.net', class: 'Unknown', cc: 'AR' });
    const classes = new Map<string, number>();
    for (const v of f.asns.values()) classes.set(v.class, (classes.get(v.class) ?? 0) + 1);
    expect(Object.fromEntries(classes)).toEqual({ Unknown: 109_805, Eyeball: 8768, Content: 1511, Carrier: 694, T1: 15 });
  });
  it('tag files: line counts of SOURCES.md, every name decoded', () => {
    const expected: Record<string, number> = { anycast: 818, cdn: 110, dsl: 3560, mobile: 348, satnet: 44, tor: 1026, vpn: 766, vpsh: 2167 };
    for (const tag of BGPTOOLS_TAGS) {
      const f = parseBgpToolsTag(readFileSync(`${FEEDS}/bgp/bgptools/tags-${tag}.csv`), tag);
      expect(f.rejected, tag).toEqual([]);
      expect(f.asns.size, tag).toBe(expected[tag]);
      for (const name of f.asns.values()) expect(name.startsWith('"') && name.endsWith('"'), name).toBe(false);
    }
    // Every decoded name equals the asns.csv name (or its 60-character cut with "...").
    const asns = parseBgpToolsAsns(readFileSync(`${FEEDS}/bgp/bgptools/asns.csv.gz`)).asns;
    let checked = 0;
    let cut = 0;
    for (const tag of BGPTOOLS_TAGS) {
      for (const [asn, name] of parseBgpToolsTag(readFileSync(`${FEEDS}/bgp/bgptools/tags-${tag}.csv`), tag).asns) {
        const full = asns.get(asn)?.name;
        if (full === undefined) continue;
        checked++;
        if (name !== full && name.endsWith('...') && full.startsWith(name.slice(0, -3))) cut++;
        else expect(name).toBe(full);
      }
    }
    expect(checked).toBe(8831);
    expect(cut).toBe(70);
    const cdn = parseBgpToolsTag(readFileSync(`${FEEDS}/bgp/bgptools/tags-cdn.csv`), 'cdn');
    expect(cdn.asns.get(13335)).toBe('Cloudflare, Inc.');
  });
});
