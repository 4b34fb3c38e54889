import { isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IpIntelError, parseAddress } from '../src/portable.js';
import { formatIPv6, zeroRunToCompress } from '../src/ip/format.js';
import { IPV6_CANONICAL, REASONS, parseIPv4, parseIPv4Bytes, parseIPv6, reasonText } from '../src/ip/parse.js';

const RUNS = Number(process.env.FC_RUNS ?? 500);
fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: RUNS });

function code(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof IpIntelError ? e.code : 'other';
  }
  return undefined;
}

describe('IPv4 parsing', () => {
  it('accepts every dotted-decimal address and round-trips it', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        const a = parseAddress(ip);
        expect(a.version).toBe(4);
        expect(a.text).toBe(ip);
        const parts = ip.split('.').map(Number);
        expect(a.version === 4 && a.value).toBe(((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!);
      }),
    );
  });

  it('rejects the extended forms (octal, hex, short) that are not plain dotted decimal', () => {
    fc.assert(
      fc.property(fc.ipV4Extended(), (ip) => {
        const canonical = /^(0|[1-9]\d{0,2})(\.(0|[1-9]\d{0,2})){3}$/.test(ip) && ip.split('.').every((p) => Number(p) <= 255);
        expect(parseIPv4(ip) >= 0).toBe(canonical);
      }),
    );
  });

  it('parses bytes exactly as it parses strings (one policy for both)', () => {
    const enc = new TextEncoder();
    fc.assert(
      fc.property(
        fc.oneof(
          fc.ipV4(),
          fc.ipV4Extended(),
          fc.string({ unit: fc.constantFrom('0', '1', '2', '5', '9', '.', '00', '25', '255', '256', 'x'), maxLength: 16 }),
          // parseIPv4's fast path (well-formed addresses) against the loop alone (parseIPv4Bytes): addresses
          // cut, extended, or with one character changed or added anywhere.
          fc.tuple(fc.ipV4(), fc.nat(16), fc.nat(16), fc.constantFrom('', '.', '0', '9', ':', ' ', 'a', '..', '00')).map(([ip, a, b, c]) => ip.slice(0, a) + c + ip.slice(Math.min(a + (b % 2), ip.length))),
        ),
        fc.nat(3),
        (s, pad) => {
          // Embedded in a larger buffer, as the CLI reads lines out of a block.
          const bytes = enc.encode(`${'#'.repeat(pad)}${s}\n`);
          expect(parseIPv4Bytes(bytes, pad, pad + s.length)).toBe(parseIPv4(s));
          // And a window of a longer string, as parseIPv6 reads an embedded IPv4 tail (digits around it,
          // which a reader looking past the window's ends would take in).
          expect(parseIPv4(`${'1'.repeat(pad)}${s}9`, pad, pad + s.length)).toBe(parseIPv4(s));
        },
      ),
      { numRuns: RUNS * 4 },
    );
  });

  it.each(['01.2.3.4', '1.2.3.04', '1.2.3', '1.2.3.4.5', '256.1.1.1', '1.2.3.-1', ' 1.2.3.4', '1.2.3.4 ', '0x1.2.3.4', '1..2.3', '', '1.2.3.4/24'])(
    'rejects %j with invalid_ip',
    (ip) => {
      expect(code(() => parseAddress(ip))).toBe('invalid_ip');
    },
  );

  it('quotes and truncates the input in the message', () => {
    const long = `1.2.3.${'9'.repeat(200)}`;
    try {
      parseAddress(long);
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).toContain(JSON.stringify(long.slice(0, 64) + '…'));
      expect((e as Error).message.length).toBeLessThan(200);
    }
    expect(() => parseAddress('01.2.3.4')).toThrow(/leading zeros/);
  });
});

describe('IPv6 parsing', () => {
  it('parses every RFC 4291 form fast-check generates and formats per RFC 5952, idempotently', () => {
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        const w = new Uint32Array(4);
        expect(parseIPv6(ip, w)).toBeGreaterThanOrEqual(0);
        const text = formatIPv6(w);
        const w2 = new Uint32Array(4);
        expect(parseIPv6(text, w2)).toBeGreaterThanOrEqual(0);
        expect(Array.from(w2)).toEqual(Array.from(w));
        expect(formatIPv6(w2)).toBe(text);
        expect(text).toBe(text.toLowerCase());
      }),
    );
  });

  it('reports IPV6_CANONICAL exactly when the input is already its RFC 5952 form', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.boolean(), (ip, upper) => {
        const input = upper ? ip.toUpperCase() : ip;
        const w = new Uint32Array(4);
        const status = parseIPv6(input, w);
        expect(status).toBeGreaterThanOrEqual(0);
        expect((status & IPV6_CANONICAL) !== 0).toBe(formatIPv6(w) === input);
      }),
      { numRuns: RUNS * 4 },
    );
  });

  it('returns canonical input as is, and formats everything else: the text is always the RFC 5952 form', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.boolean(), (ip, upper) => {
        const input = upper ? ip.toUpperCase() : ip;
        const w = new Uint32Array(4);
        expect(parseIPv6(input, w)).toBeGreaterThanOrEqual(0);
        const a = parseAddress(input);
        if (a.version === 6) expect(a.text).toBe(formatIPv6(w));
        // Canonical text round-trips to itself.
        const canonical = formatIPv6(w);
        if (a.version === 6) expect(parseAddress(canonical).text).toBe(canonical);
      }),
      { numRuns: RUNS * 4 },
    );
  });

  it('finds the run RFC 5952 compresses for every pattern of zero groups (its table against a scan by length)', () => {
    // The first longest run of two or more zero groups: try every length from 8 down, every start from the left.
    const byLength = (g: number[]): number => {
      for (let len = 8; len >= 2; len--) {
        for (let at = 0; at + len <= 8; at++) if (g.slice(at, at + len).every((x) => x === 0)) return at * 16 + len;
      }
      return -1;
    };
    for (let mask = 0; mask < 256; mask++) {
      const g = Array.from({ length: 8 }, (_, k) => ((mask >>> k) & 1 ? 0 : 1 + k * 4099));
      expect(zeroRunToCompress(g), mask.toString(2)).toBe(byLength(g));
    }
  });

  it('formats per RFC 5952 section 4', () => {
    const f = (s: string): string => parseAddress(s).text;
    expect(f('2001:0DB8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1');
    expect(f('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1'); // a single zero group is not compressed
    expect(f('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1'); // first of equal runs
    expect(f('2001:0:0:1:0:0:0:1')).toBe('2001:0:0:1::1'); // longest run
    expect(f('::')).toBe('::');
    expect(f('::1')).toBe('::1');
    expect(f('1::')).toBe('1::');
    expect(f('64:ff9b::192.0.2.33')).toBe('64:ff9b::c000:221');
  });

  it('answers IPv4-mapped IPv6 as IPv4, in both text forms', () => {
    expect(parseAddress('::ffff:8.8.8.8')).toEqual({ version: 4, value: 0x08080808, text: '8.8.8.8' });
    expect(parseAddress('::FFFF:0808:0808')).toEqual({ version: 4, value: 0x08080808, text: '8.8.8.8' });
    expect(parseAddress('0:0:0:0:0:ffff:1.2.3.4').text).toBe('1.2.3.4');
    // IPv4-compatible (deprecated) stays IPv6.
    expect(parseAddress('::1.2.3.4').version).toBe(6);
  });

  it.each([
    ':::',
    '1:::2',
    '1::2::3',
    ':1::2',
    '1::2:',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7:8::',
    '12345::',
    'g::1',
    'fe80::1%eth0',
    '::ffff:1.2.3',
    '::ffff:01.2.3.4',
    '1.2.3.4::',
    '1:2:3:4:5:6:7:1.2.3.4',
    '[::1]',
    'ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255:1',
  ])('rejects %j with invalid_ip', (ip) => {
    expect(code(() => parseAddress(ip))).toBe('invalid_ip');
  });

  it('rejects non-strings with invalid_ip and never anything else', () => {
    fc.assert(
      fc.property(fc.anything(), (x) => {
        const c = code(() => parseAddress(x));
        if (typeof x === 'string' && c === undefined) return; // a valid address by chance
        expect(c).toBe('invalid_ip');
      }),
    );
  });

  it('never throws anything but invalid_ip for arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60, unit: fc.constantFrom(...'0123456789abcdefABCDEF:.%/ x'.split('')) }), (s) => {
        const c = code(() => parseAddress(s));
        expect(c === undefined || c === 'invalid_ip').toBe(true);
      }),
      { numRuns: RUNS * 4 },
    );
  });
});

describe('rejection reasons (the parser reports why, in one place)', () => {
  const why = (input: unknown): string => {
    try {
      parseAddress(input);
    } catch (e) {
      return (e as Error).message.replace(/^.* is not a valid IP address: /, '');
    }
    return 'accepted';
  };

  it.each([
    ['', 'empty string'],
    [' 1.2.3.4', 'whitespace is not part of an address'],
    ['1.2.3.4\u00a0', 'whitespace is not part of an address'],
    ['2001:db8::1 ', 'whitespace is not part of an address'],
    ['1.2.3.4/24', 'a prefix, not an address'],
    ['2001:db8::/32', 'a prefix, not an address'],
    ['fe80::1%eth0', '"%" is not part of an address (no zone identifier or percent-encoding)'],
    ['::ffff:1.2.3.4%1', '"%" is not part of an address (no zone identifier or percent-encoding)'],
    ['01.2.3.4', 'leading zeros in an IPv4 part are ambiguous'],
    ['1.2.3', 'IPv4 needs four decimal parts 0-255'],
    ['16843009', 'IPv4 needs four decimal parts 0-255'],
    ['1.2.3.256', 'IPv4 needs four decimal parts 0-255'],
    ['1.2.3.4::', 'not an IPv4 dotted-decimal or IPv6 text form'],
    ['1::2::3', 'IPv6 allows one "::" only'],
    ['12345::', 'an IPv6 group has at most four hex digits'],
    [':1::2', 'a single ":" at the start or end'],
    ['1::2:', 'a single ":" at the start or end'],
    ['1:2:3:4:5:6:7', 'IPv6 needs eight groups, or fewer with one "::"'],
    ['1:2:3:4:5:6:7:8::', 'IPv6 needs eight groups, or fewer with one "::"'],
    ['::ffff:1.2.3', 'an embedded IPv4 part must be four decimal parts 0-255 at the end'],
    ['g::1', 'not an IPv4 dotted-decimal or IPv6 text form'],
    ['hello', 'not an IPv4 dotted-decimal or IPv6 text form'],
    ['9'.repeat(50), 'longer than 45 characters'],
    [42, 'expected a string'],
  ] as const)('%j: %s', (input, reason) => {
    expect(why(input)).toBe(reason);
  });

  it('every code maps to a message, and every rejection carries one of them', () => {
    for (let code = -1; code > -REASONS.length; code--) expect(reasonText(code)).toBe(REASONS[-code]);
    const known = new Set(REASONS.slice(1));
    fc.assert(
      fc.property(fc.string({ maxLength: 50, unit: fc.constantFrom(...'0123456789abcdefABCDEF:.%/ \t\u00a0x'.split('')) }), (s) => {
        const r = why(s);
        expect(r === 'accepted' || known.has(r), `${JSON.stringify(s)}: ${r}`).toBe(true);
      }),
      { numRuns: RUNS * 4 },
    );
  });
});

/**
 * Our parser against the platform's (Go's netip fuzzes against net.ParseIP
 * the same way). Every difference is a documented policy (docs/parsing.md):
 * 1. Zone identifiers: node:net accepts `fe80::1%eth0`; we reject them.
 * That is the only one: leading zeros, short forms, hex, whitespace and
 * `[brackets]` are rejected by both. Where both accept, the families agree
 * (IPv4-mapped IPv6 is IPv6 to node:net and answered as IPv4 by us).
 */
describe('parser vs node:net isIP on random strings', () => {
  const ZONE = fc.stringMatching(/^%[0-9a-zA-Z]{1,6}$/);
  const octet = fc.oneof(fc.integer({ min: 0, max: 255 }).map(String), fc.constantFrom('00', '01', '256', '999', ''));
  const noisy = (base: fc.Arbitrary<string>): fc.Arbitrary<string> =>
    fc
      .tuple(base, fc.array(fc.tuple(fc.nat(), fc.constantFrom(...'0123456789abcdefABCDEF:.%/ \t\n[]x-'.split('')), fc.boolean()), { maxLength: 3 }))
      .map(([s, edits]) => {
        let out = s;
        for (const [at, c, insert] of edits) {
          const i = out.length === 0 ? 0 : at % out.length;
          out = insert ? out.slice(0, i) + c + out.slice(i) : out.slice(0, i) + out.slice(i + 1);
        }
        return out;
      });
  const inputs = fc.oneof(
    fc.ipV4(),
    fc.ipV6(),
    fc.ipV4Extended(),
    fc.tuple(octet, octet, octet, octet).map((p) => p.join('.')),
    fc.tuple(fc.ipV6(), ZONE).map(([a, z]) => a + z),
    noisy(fc.oneof(fc.ipV4(), fc.ipV6())),
    fc.string({ maxLength: 46, unit: fc.constantFrom(...'0123456789abcdef:.'.split('')) }),
  );

  it('agrees on every input except zone identifiers (our documented policy)', () => {
    const w = new Uint32Array(4);
    fc.assert(
      fc.property(inputs, (s) => {
        const node = isIP(s);
        let ours: 0 | 4 | 6 = 0;
        try {
          ours = parseAddress(s).version;
        } catch (e) {
          expect((e as IpIntelError).code).toBe('invalid_ip');
        }
        if (node === 6 && s.includes('%')) {
          expect(ours, `${JSON.stringify(s)}: a zone`).toBe(0);
          return;
        }
        if (node === 0) expect(ours, `${JSON.stringify(s)}: node:net rejects it`).toBe(0);
        else if (node === 4) expect(ours, JSON.stringify(s)).toBe(4);
        else {
          expect(ours, `${JSON.stringify(s)}: node:net accepts it as IPv6`).not.toBe(0);
          if (ours === 4) {
            // Answered as IPv4: only IPv4-mapped IPv6 is.
            expect(parseIPv6(s, w)).toBeGreaterThanOrEqual(0);
            expect([w[0], w[1], w[2]]).toEqual([0, 0, 0xffff]);
          }
        }
      }),
      { numRuns: Number(process.env.FC_RUNS_NET ?? 20_000) },
    );
  });
});
