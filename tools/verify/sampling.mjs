// Which addresses verify-build checks: random public addresses (IPv4, IPv6 in
// 2000::/3, IPv6 inside the ASN table's ranges) and addresses drawn from each
// signal feed's own entries. Seeded (tools/bench/common.mjs's mulberry32), with
// two streams so that the feed samples are the same whatever --v4/--v6 say.
import { mulberry32 } from '../bench/common.mjs';
import { WIDTH, prefixText, toText } from './tables.mjs';

/** A seeded source of random numbers with a `random` and a `feed` stream. */
export class Sampler {
  constructor(seed) {
    this.streams = { random: mulberry32(seed), feed: mulberry32((seed ^ 0x9e3779b9) >>> 0) };
    this.rand32 = this.streams.random;
  }
  /** Switches to the named stream. */
  use(name) {
    this.rand32 = this.streams[name];
  }
  /** 0..n-1 (n < 2^32). */
  int(n) {
    return Math.floor((this.rand32() / 4294967296) * n);
  }
  /** A random bigint of `bits` bits. */
  bits(bits) {
    let x = 0n;
    for (let b = 0; b < bits; b += 32) x = (x << 32n) | BigInt(this.rand32());
    return x >> BigInt(Math.ceil(bits / 32) * 32 - bits);
  }
  /** Uniform in [first, last] (bigints). */
  between(first, last) {
    const span = last - first + 1n;
    const bits = span.toString(2).length;
    for (;;) {
      const r = this.bits(bits);
      if (r < span) return first + r;
    }
  }
}

/** Random-address generators that avoid special-purpose space (`special`: a PrefixTable). */
export function randomAddresses(sampler, special, asnV6) {
  return {
    v4() {
      for (;;) {
        const x = BigInt(sampler.rand32());
        if (!special.has(4, x)) return x;
      }
    },
    v6Global() {
      for (;;) {
        const x = (1n << 125n) | sampler.bits(125); // 2000::/3
        if (!special.has(6, x)) return x;
      }
    },
    v6InTable() {
      for (;;) {
        const i = sampler.int(asnV6.length);
        const x = sampler.between(asnV6.first[i], asnV6.last[i]);
        if (!special.has(6, x)) return x;
      }
    },
  };
}

/**
 * Up to `n` addresses from a feed: the first, last and a random inner
 * address of its entries (prefixes; for an ASN list, the ASN table's ranges
 * of the listed ASNs), entries taken in random order without repetition
 * until `n` addresses are drawn (single-address entries give one each).
 * `feed` is `{ prefixes }` or `{ asns }`; `asnTables` the RangeTables per version.
 */
export function feedAddresses(sampler, feed, n, asnTables) {
  const entries = [];
  if (feed.prefixes) {
    for (const p of feed.prefixes) {
      entries.push({ version: p.version, first: p.start, last: p.start + (1n << BigInt(WIDTH[p.version] - p.length)) - 1n, label: prefixText(p.version, p.start, p.length) });
    }
  } else {
    for (const v of [4, 6]) {
      const t = asnTables[v];
      for (let i = 0; i < t.length; i++) {
        if (feed.asns.has(t.value[i].asn)) entries.push({ version: v, first: BigInt(t.first[i]), last: BigInt(t.last[i]), label: `AS${t.value[i].asn} range ${toText(v, BigInt(t.first[i]))}` });
      }
    }
  }
  const out = [];
  for (let k = 0; k < entries.length && out.length < n; k++) {
    // Partial Fisher-Yates: entry k is a random one of those not taken yet.
    const j = k + sampler.int(entries.length - k);
    [entries[k], entries[j]] = [entries[j], entries[k]];
    const { version, first, last, label } = entries[k];
    out.push({ version, x: first, kind: `${label} first` });
    if (out.length < n && last !== first) out.push({ version, x: last, kind: `${label} last` });
    if (out.length < n && last - first > 1n) out.push({ version, x: sampler.between(first + 1n, last - 1n), kind: `${label} inside` });
  }
  return out;
}
