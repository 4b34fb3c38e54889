import { describe, expect, it } from 'vitest';
import { BGPTOOLS_TAGS, decodeTagName, parseBgpToolsTag } from '../../src/feeds/routing/bgptools.js';
import type { BgpToolsAsn } from '../../src/feeds/routing/bgptools.js';
import { FEEDS, feedById } from '../../src/feeds/registry.js';
import type { AsnsFound } from '../../src/feeds/types.js';
import { enc, readFixture } from './helpers.js';

describe('bgp.tools tag names', () => {
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

  it('an unquoted name with a comma is no tag line: asns.csv in a tag file\'s place is feed_format, not every AS tagged', () => {
    expect(decodeTagName('CSNET Coordination and Information Center (CSNET-CIC),Unknown,US')).toBeNull();
    const asnsCsv = 'asn,name,class,cc\nAS10,CSNET Coordination and Information Center (CSNET-CIC),Unknown,US\nAS100,FMC Central Engineering Laboratories,Unknown,US\nAS13335,"Cloudflare, Inc.",Content,US\n';
    expect(() => feedById('bgptools-tag-mobile').read(asnsCsv)).toThrow(expect.objectContaining({ code: 'feed_format' }) as Error);
    const f = parseBgpToolsTag(enc('AS1,Foo\nAS2,Bar,Eyeball,US\n'), 'bgptools-tag-x');
    expect([...f.asns]).toEqual([[1, 'Foo']]);
    expect(f.rejected).toEqual([{ feed: 'bgptools-tag-x', line: 2, message: 'bad CSV quoting in name: "Bar,Eyeball,US"' }]);
  });
});

describe('bgp.tools asns.csv fixture', () => {
  const f = readFixture<AsnsFound<BgpToolsAsn>>('bgptools-asns');
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
  });
  it('reports each malformed record (line numbers count the line break inside a name)', () => {
    expect(f.rejected).toEqual([
      { feed: 'bgptools-asns', line: 11, message: 'bad ASN "ASX1"' },
      { feed: 'bgptools-asns', line: 12, message: 'expected 4 fields, got 5: "AS1,Too,Many,Fields,US"' },
      { feed: 'bgptools-asns', line: 13, message: 'AS13335 listed again; first row kept' },
    ]);
  });
  it('refuses a file without the header', () => {
    expect(() => feedById('bgptools-asns').read(enc('AS1,x,Unknown,US\n'))).toThrow(expect.objectContaining({ code: 'feed_format' }));
  });
});

describe('bgp.tools tag fixtures', () => {
  const tags = Object.fromEntries(BGPTOOLS_TAGS.map((t) => [t, readFixture<AsnsFound<string>>(`bgptools-tag-${t}`)]));
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
  });
  it('reports the malformed line', () => {
    expect(tags.mobile!.rejected).toEqual([
      { feed: 'bgptools-tag-mobile', line: 3, message: 'expected AS<n>,name: "22394,Cellco Partnership DBA Verizon Wireless"' },
    ]);
    for (const t of BGPTOOLS_TAGS.filter((x) => x !== 'mobile')) expect(tags[t]!.rejected).toEqual([]);
    const bad = parseBgpToolsTag(enc('AS1,"open\nAS2,x\nAS2,y\n'), 'bgptools-tag-x');
    expect(bad.rejected).toEqual([
      { feed: 'bgptools-tag-x', line: 1, message: 'bad CSV quoting in name: "\\"open"' },
      { feed: 'bgptools-tag-x', line: 3, message: 'AS2 listed again; first line kept' },
    ]);
  });
  it('one declaration per tag, dated by the mirror; the build reads mobile, satnet, dsl, vpsh and cdn', () => {
    const tagFeeds = FEEDS.filter((f) => f.role === 'asn-tag');
    expect(tagFeeds.map((f) => f.tag)).toEqual([...BGPTOOLS_TAGS]);
    expect(tagFeeds.filter((f) => f.use === 'build').map((f) => f.tag)).toEqual(['mobile', 'satnet', 'dsl', 'vpsh', 'cdn']);
    expect(tagFeeds.every((f) => f.copyDate === '2026-05-31')).toBe(true);
  });
});
