import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IpIntelError, parseAddress } from '../src/portable.js';
import { formatIPv6 } from '../src/ip/format.js';
import { parseIPv4, parseIPv4Bytes, parseIPv6 } from '../src/ip/parse.js';

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
        fc.oneof(fc.ipV4(), fc.ipV4Extended(), fc.string({ unit: fc.constantFrom('0', '1', '2', '5', '9', '.', '00', '25', '255', '256', 'x'), maxLength: 16 })),
        fc.nat(3),
        (s, pad) => {
          // Embedded in a larger buffer, as the CLI reads lines out of a block.
          const bytes = enc.encode(`${'#'.repeat(pad)}${s}\n`);
          expect(parseIPv4Bytes(bytes, pad, pad + s.length)).toBe(parseIPv4(s));
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
        expect(parseIPv6(ip, w)).toBe(true);
        const text = formatIPv6(w);
        const w2 = new Uint32Array(4);
        expect(parseIPv6(text, w2)).toBe(true);
        expect(Array.from(w2)).toEqual(Array.from(w));
        expect(formatIPv6(w2)).toBe(text);
        expect(text).toBe(text.toLowerCase());
      }),
    );
  });

  it('returns canonical input as is, and formats everything else: the text is always the RFC 5952 form', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.boolean(), (ip, upper) => {
        const input = upper ? ip.toUpperCase() : ip;
        const w = new Uint32Array(4);
        expect(parseIPv6(input, w)).toBe(true);
        const a = parseAddress(input);
        if (a.version === 6) expect(a.text).toBe(formatIPv6(w));
        // Canonical text round-trips to itself.
        const canonical = formatIPv6(w);
        if (a.version === 6) expect(parseAddress(canonical).text).toBe(canonical);
      }),
      { numRuns: RUNS * 4 },
    );
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
