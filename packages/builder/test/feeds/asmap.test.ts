/**
 * The asmap bytecode reader: against the decoded text of the same map (the
 * fixture pair), against a naive longest-prefix oracle for random maps
 * written by the test kit's encoder, against malformed programs, and on the
 * vendored full-size file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asmapEntry, encodeAsmap, naiveLpm, prefixSetArb, probeAddresses, REPO_ROOT } from '@ipintel/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FeedError } from '../../src/errors.js';
import { feedById } from '../../src/feeds/registry.js';
import { decodeAsmap, toFamilyPrefixes } from '../../src/feeds/routing/asmap-bytecode.js';
import type { AsmapRoute } from '../../src/feeds/routing/asmap.js';
import type { PrefixesFound } from '../../src/feeds/types.js';
import { fixtureBytes, readFixture } from './helpers.js';

/** A family prefix back in the 128-bit space (IPv4 under ::ffff:0:0/96). */
function mapped(p: { version: 4 | 6; start: bigint; length: number }): { start: bigint; length: number } {
  return p.version === 6 ? { start: p.start, length: p.length } : { start: (0xffffn << 32n) | p.start, length: p.length + 96 };
}

/** The AS an address maps to under a decoded map (leaves do not overlap). */
function lookup(leaves: readonly { start: bigint; length: number; asn: number }[], addr: bigint): number {
  for (const l of leaves) if (addr >= l.start && addr < l.start + (1n << BigInt(128 - l.length))) return l.asn;
  return 0;
}

describe('asmap bytecode', () => {
  it('the fixture maps exactly what its decoded-text twin lists', () => {
    const bin = readFixture<PrefixesFound<AsmapRoute>>('asmap-bytecode');
    const text = readFixture<PrefixesFound<{ asn: number }>>('asmap');
    // The text nests (8.8.8.0/24 inside 8.0.0.0/9); the program's paths do not: compare answers at every boundary.
    const textSet = text.prefixes.map((p) => ({ ...mapped(p), value: p.value.asn }));
    const leaves = bin.prefixes.map((p) => ({ ...mapped(p), asn: p.value.origins[0]! }));
    expect(bin.prefixes.every((p) => p.value.origins.length === 1)).toBe(true);
    for (const a of probeAddresses(128, textSet)) expect(lookup(leaves, a), `at ${a}`).toBe(naiveLpm(128, textSet, a));
    expect(bin.source.id).toBe('asmap-bytecode');
    expect(bin.source.data_date).toBe('2025-12-04T16:00:00Z');
  });

  it('decodes any map the encoder writes to the longest-prefix answer, at every boundary', () => {
    fc.assert(
      fc.property(prefixSetArb(128, [0, 1, 7, 16, 32, 48, 96, 104, 120, 127, 128], 1 << 20).filter((s) => s.length > 0), (set) => {
        const leaves = decodeAsmap(encodeAsmap(set.map((p) => ({ start: p.start, length: p.length, asn: p.value }))), 'test');
        for (const a of probeAddresses(128, set)) expect(lookup(leaves, a)).toBe(naiveLpm(128, set, a));
      }),
      { numRuns: 150 },
    );
  });

  it('places ::ffff:0:0/96 in IPv4 and keeps the rest IPv6', () => {
    const v4 = asmapEntry('10.0.0.0/8', 1);
    expect(toFamilyPrefixes(v4)).toEqual([{ version: 4, start: 10n << 24n, length: 8 }]);
    expect(toFamilyPrefixes(asmapEntry('2001:db8::/32', 1))).toEqual([{ version: 6, start: 0x20010db8n << 96n, length: 32 }]);
    // A prefix covering the mapped block covers all of IPv4 too.
    expect(toFamilyPrefixes({ start: 0n, length: 0, asn: 1 }).map((p) => `${p.version}/${p.length}`)).toEqual(['6/0', '4/0']);
  });

  it('throws a typed error for malformed programs, never a wrong map', () => {
    const good = fixtureBytes('asmap-bytecode');
    const codes = (bytes: Uint8Array): string => {
      try {
        decodeAsmap(bytes, 'asmap-bytecode');
        return 'ok';
      } catch (e) {
        expect(e).toBeInstanceOf(FeedError);
        return (e as FeedError).code;
      }
    };
    expect(codes(new Uint8Array(0))).toBe('feed_empty');
    expect(codes(good.subarray(0, 5))).toBe('feed_format'); // cut mid-program
    expect(codes(Uint8Array.of(0xff, 0xff, 0xff))).toBe('feed_format'); // a jump past the data
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), (bytes) => {
        const code = codes(bytes);
        expect(['ok', 'feed_format']).toContain(code);
      }),
    );
  });
});

/** A program of `n` × [JUMP over the DEFAULT, DEFAULT] then RETURN: both sides of each jump run the same code, 2^n paths in a few bytes. */
function sharedCodeAsmap(n: number): Uint8Array {
  const bits: number[] = [];
  const num = (v: number, width: number): void => {
    for (let k = width - 1; k >= 0; k--) bits.push((v >>> k) & 1);
  };
  for (let i = 0; i < n; i++) {
    bits.push(1, 0, 0); // JUMP, class 0 (5 bits)
    num(2, 5); // 17 + 2 = 19 bits: over the DEFAULT below
    bits.push(1, 1, 1, 0); // DEFAULT, class 0 (15 bits)
    num(100, 15); // AS 101
  }
  bits.push(0, 0); // RETURN, class 0
  num(13334, 15); // AS 13335
  const out = new Uint8Array(Math.ceil(bits.length / 8));
  bits.forEach((b, i) => {
    out[i >>> 3]! |= b << (i & 7);
  });
  return out;
}

describe('asmap bytecode, code reached by two paths', () => {
  it('refuses a program whose jumps share code (2^40 paths in 138 bytes) at once, as feed_format', () => {
    const bytes = sharedCodeAsmap(40);
    expect(bytes.length).toBe(138);
    // A decoder that walked the paths would not return (2^40 of them): the test's timeout bounds it, no clock here.
    expect(() => decodeAsmap(bytes, 'asmap-bytecode')).toThrow(
      expect.objectContaining({ name: 'FeedError', code: 'feed_format', message: expect.stringContaining('two paths') }),
    );
  });

  it('refuses shared code at any depth, even one jump (2 paths)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 16 }), (n) => {
        expect(() => decodeAsmap(sharedCodeAsmap(n), 'asmap-bytecode')).toThrow(FeedError);
      }),
      { numRuns: 50 },
    );
  });

  it('yields at most 8 prefixes per bit of any input: work bounded by the file size', () => {
    // Each instruction runs once and yields at most 8 prefixes (a MATCH of 8 bits), and takes at least 1 bit.
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 256 }), (bytes) => {
        try {
          expect(decodeAsmap(bytes, 'asmap-bytecode').length).toBeLessThanOrEqual(bytes.length * 8 * 8);
        } catch (e) {
          expect(e).toBeInstanceOf(FeedError);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('asmap bytecode, the vendored full-size file', () => {
  const feed = feedById('asmap-bytecode');
  if (feed.origin !== 'feeds') throw new Error('asmap-bytecode is a feeds-folder file');
  const bytes = new Uint8Array(readFileSync(join(REPO_ROOT, 'data/feeds', feed.path)));

  it('decodes every path and maps well-known networks to their AS', () => {
    const found = feed.read(bytes) as unknown as PrefixesFound<AsmapRoute>;
    const leaves = decodeAsmap(bytes, feed.id);
    expect(leaves.length).toBe(1_107_256);
    // Unmapped paths dropped; no mapped prefix covers ::ffff:0:0/96 whole, so one family prefix per path.
    expect(found.prefixes.length).toBe(leaves.filter((l) => l.asn !== 0).length);
    const v4 = (text: string): bigint => (0xffffn << 32n) | text.split('.').reduce((x, o) => (x << 8n) | BigInt(o), 0n);
    const at = (addr: bigint): number => lookup(leaves, addr);
    expect(at(v4('8.8.8.8'))).toBe(15169);
    expect(at(v4('1.1.1.1'))).toBe(13335);
    expect(at(asmapEntry('2001:4860:4860::8888/128', 0).start)).toBe(15169);
    expect(at(v4('10.0.0.1'))).toBe(0); // private space is unmapped
  });
});
