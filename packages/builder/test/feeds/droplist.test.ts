import { describe, expect, it } from 'vitest';
import type { AsnDropValue, DropValue } from '../../src/feeds/droplist.js';
import { feedById } from '../../src/feeds/registry.js';
import type { AsnsFound, PrefixesFound } from '../../src/feeds/types.js';
import { cidr, readFixture, readFullSize } from './helpers.js';

const v4 = feedById('spamhaus-drop-v4');
const asnDrop = feedById('spamhaus-asndrop');
const META = '{"type":"metadata","timestamp":1787415242,"size":1,"records":1}';
const REC = '{"cidr":"1.10.16.0/20","sblid":"SBL256894","rir":"apnic"}';

describe('Spamhaus DROP', () => {
  it('drop_v4.json: records with SBL ids, bad records rejected, metadata date, copyright before the terms', () => {
    const f = readFixture<PrefixesFound<DropValue>>('spamhaus-drop-v4');
    expect(f.prefixes.map((p) => `${cidr(p)} ${p.value.sblid}`)).toEqual(['1.10.16.0/20 SBL256894', '1.19.0.0/16 SBL434604', '223.254.0.0/16 SBL212803']);
    expect(f.rejected).toEqual([
      { feed: 'spamhaus-drop-v4', line: 3, message: 'prefix length 33 exceeds 32' },
      { feed: 'spamhaus-drop-v4', line: 4, message: 'record without a "cidr" string' },
    ]);
    expect(f.source.licence).toContain('(c) 2026 The Spamhaus Project SLU');
  });

  it('drop_v6 ipset: add lines, no SBL ids, re-processed note', () => {
    const f = readFixture<PrefixesFound<DropValue>>('spamhaus-drop-v6');
    expect(f.prefixes.map((p) => `${cidr(p)} ${p.value.sblid}`)).toEqual(['2a12:a800:7::/48 null', '2a06:e480::/29 null', '2001:678:770::/48 null']);
    expect(f.rejected).toEqual([{ feed: 'spamhaus-drop-v6', line: 3, message: 'host bits set: "2401:c580::1/32"' }]);
    expect(f.source.note).toContain('RE-PROCESSED');
  });

  it('asndrop.json: ASN -> record, bad and duplicate records rejected', () => {
    const f = readFixture<AsnsFound<AsnDropValue>>('spamhaus-asndrop');
    expect([...f.asns.keys()]).toEqual([245, 399471, 402647]);
    expect(f.asns.get(399471)).toEqual({ asname: 'CUSTOMER', cc: 'NL', rir: 'arin', domain: 'serverion.com' });
    expect(f.rejected).toEqual([{ feed: 'spamhaus-asndrop', line: 3, message: 'record without an ASN in 1..4294967295: "AS402647"' }]);
    const dup = asnDrop.read('{"asn":1}\n{"asn":1}\n{"type":"metadata","timestamp":1,"records":2}\n');
    expect(dup.rejected).toEqual([{ feed: 'spamhaus-asndrop', line: 2, message: 'duplicate AS1' }]);
  });

  it('a line that is not JSON is rejected, not fatal', () => {
    const f = v4.read(`${REC}\n{"cidr":\n${META.replace('"records":1', '"records":2')}\n`) as PrefixesFound<DropValue>;
    expect(f.prefixes).toHaveLength(1);
    expect(f.rejected).toEqual([{ feed: 'spamhaus-drop-v4', line: 2, message: 'not JSON: "{\\"cidr\\":"' }]);
  });

  it('a metadata timestamp no date can hold gives no data date (it threw RangeError)', () => {
    for (const ts of ['1e15', '9007199254740991']) {
      const f = v4.read(`${REC}\n${META.replace(/"timestamp":\d+/, `"timestamp":${ts}`)}\n`) as PrefixesFound<DropValue>;
      expect([f.prefixes.length, f.dataDate], ts).toEqual([1, null]);
    }
  });

  it('a file cut before its metadata, or shorter than the metadata says, is feed_truncated; other misshapes feed_format', () => {
    expect(() => v4.read(`${REC}\n`)).toThrow(expect.objectContaining({ code: 'feed_truncated', message: expect.stringMatching(/truncated/) }));
    expect(() => v4.read(`${REC}\n${META.replace('"records":1', '"records":2')}\n`)).toThrow(
      expect.objectContaining({ code: 'feed_truncated', message: expect.stringMatching(/metadata says 2 records/) }),
    );
    expect(() => v4.read(`${META}\n${REC}\n`)).toThrow(expect.objectContaining({ code: 'feed_format', message: expect.stringMatching(/after the metadata/) }));
    expect(() => v4.read('[{"cidr":"1.10.16.0/20"}]')).toThrow(expect.objectContaining({ code: 'feed_truncated' }));
    // More records than the metadata says is no cut file (feed_truncated: fewer records than stated): two files joined, a mirror's added line.
    for (const extra of [`${REC}\n${REC.replace('1.10.16.0', '1.19.0.0')}\n${META}\n`, `# Last updated: 2026-08-22T16:18:35Z\n${REC}\n${META}\n`]) {
      expect(() => v4.read(extra)).toThrow(expect.objectContaining({ code: 'feed_format', message: expect.stringMatching(/metadata says 1 records, file has 2/) }));
    }
    expect(() => v4.read(`${REC}\n${META.replace('"records":1', '"records":"1"')}\n`)).toThrow(
      expect.objectContaining({ code: 'feed_format', message: expect.stringMatching(/metadata says "1" records, file has 1/) }),
    );
  });
});

describe('Spamhaus DROP, full size (vendored copy)', () => {
  it('drop_v4: every record has its SBL id', async () => {
    const f = await readFullSize<PrefixesFound<DropValue>>('spamhaus-drop-v4');
    expect(f.prefixes.every((p) => p.version === 4 && p.value.sblid !== null && /^SBL\d+$/.test(p.value.sblid))).toBe(true);
    expect(f.prefixes[0]).toMatchObject({ length: 20, value: { sblid: 'SBL256894' } });
  });

  it('asndrop holds AS399471', async () => {
    expect((await readFullSize<AsnsFound<AsnDropValue>>('spamhaus-asndrop')).asns.get(399471)?.asname).toBe('CUSTOMER');
  });
});
