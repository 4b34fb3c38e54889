/**
 * Address counts per signal for `ipintel info`: how many IPv4 addresses and
 * how many IPv6 /64 blocks (fractional for ranges finer than /64) carry each
 * signal.
 *
 * Two ways, best first:
 * 1. `intel.leafCoverage()` — the core primitive this needs (requested from
 *    core): per leaf id, the IPv4 address count and IPv6 /64 count mapped to
 *    it. One pass over the index; then resultForLeaf() gives each leaf's
 *    signals. Used as soon as core provides it.
 * 2. A walk over the address space with the public `match()` (the largest
 *    CIDR block around an address whose addresses all share its result):
 *    one match + one check per block, so only for small snapshots
 *    (WALK_LIMIT ranges); for bigger ones the counts are reported missing.
 *
 * @module
 */
import type { CheckResult, IpIntel } from '@ipintel/core';

/** Signals counted, with how to read each from a result. */
export const COUNTED: readonly { readonly name: string; readonly on: (r: CheckResult) => boolean }[] = [
  { name: 'is_datacenter', on: (r) => r.signals.is_datacenter },
  { name: 'is_tor', on: (r) => r.signals.is_tor },
  { name: 'is_vpn', on: (r) => r.signals.is_vpn },
  { name: 'is_proxy', on: (r) => r.signals.is_proxy },
  { name: 'is_relay', on: (r) => r.signals.is_relay },
  { name: 'is_public_resolver', on: (r) => r.signals.is_public_resolver },
  { name: 'is_drop_listed', on: (r) => r.signals.is_drop_listed },
  { name: 'recent_abuse', on: (r) => r.signals.recent_abuse },
  { name: 'is_verified_bot', on: (r) => r.signals.is_verified_bot },
  { name: 'connection_type:satellite', on: (r) => r.signals.connection_type === 'satellite' },
  { name: 'connection_type:mobile', on: (r) => r.signals.connection_type === 'mobile' },
  { name: 'connection_type:isp', on: (r) => r.signals.connection_type === 'isp' },
  { name: 'connection_type:unknown', on: (r) => r.signals.connection_type === 'unknown' },
  { name: 'network.is_announced', on: (r) => r.network.is_announced },
  { name: 'network.is_bogon', on: (r) => r.network.is_bogon },
];

export interface SignalCount {
  readonly ipv4_addresses: number;
  /** IPv6 space in /64 units (a /48 counts 65536; a /128 counts 2^-64). */
  readonly ipv6_64s: number;
}

export interface Coverage {
  /** `core`: from intel.leafCoverage(); `walk`: from the match() walk. */
  readonly method: 'core' | 'walk';
  readonly signals: Readonly<Record<string, SignalCount>>;
}

/** Ranges above which the match() walk is not attempted (~8 µs per range: 200k ranges ≈ 2 s). */
export const WALK_LIMIT = 200_000;

/** The core method this module asks for; see the module comment. */
interface LeafCoverage {
  leafCoverage(): { readonly v4: ArrayLike<number>; readonly v6: ArrayLike<number> };
}

type Tally = Record<string, { ipv4_addresses: number; ipv6_64s: number }>;

function emptyTally(): Tally {
  return Object.fromEntries(COUNTED.map((c) => [c.name, { ipv4_addresses: 0, ipv6_64s: 0 }]));
}

function add(t: Tally, r: CheckResult, v4: number, v6: number): void {
  for (const c of COUNTED) {
    if (c.on(r)) {
      t[c.name]!.ipv4_addresses += v4;
      t[c.name]!.ipv6_64s += v6;
    }
  }
}

function fromCore(intel: IpIntel & LeafCoverage): Coverage {
  const { v4, v6 } = intel.leafCoverage();
  const t = emptyTally();
  for (let leaf = 0; leaf < v4.length; leaf++) {
    const a = v4[leaf]!;
    const b = v6[leaf] ?? 0;
    if (a > 0 || b > 0) add(t, intel.resultForLeaf(leaf, '0.0.0.0', 4), a, b);
  }
  return { method: 'core', signals: t };
}

const V4_END = 2 ** 32;
const V6_END = 1n << 128n;

function v4Text(a: number): string {
  return `${(a >>> 24) & 255}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`;
}

function v6Text(a: bigint): string {
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((a >> BigInt(i * 16)) & 0xffffn).toString(16));
  return groups.join(':');
}

function parseV4(text: string): number {
  return text.split('.').reduce((acc, p) => acc * 256 + Number(p), 0);
}

function parseV6Prefix(prefix: string): bigint {
  // match() prints RFC 5952 text; expand "::" and read the groups.
  const addr = prefix.slice(0, prefix.indexOf('/'));
  const [head, tail] = addr.includes('::') ? addr.split('::') : [addr, undefined];
  const h = head === '' ? [] : head!.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const all = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return all.reduce((acc, g) => (acc << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
}

function walk(intel: IpIntel): Coverage {
  const t = emptyTally();
  // 1. IPv4: from each block's end to the next block.
  for (let a = 0; a < V4_END; ) {
    const text = v4Text(a);
    const m = intel.match(text);
    const end = parseV4(m.prefix.slice(0, m.prefix.indexOf('/'))) + 2 ** (32 - m.prefix_length);
    add(t, intel.check(text), end - a, 0);
    a = end;
  }
  // 2. IPv6 (IPv4-mapped space answers as IPv4 and is skipped: counted above).
  for (let a = 0n; a < V6_END; ) {
    const text = v6Text(a);
    const r = intel.check(text);
    if (r.version === 4) {
      a = 0xffff_0000_0000n + (1n << 32n);
      continue;
    }
    const m = intel.match(text);
    const end = parseV6Prefix(m.prefix) + (1n << BigInt(128 - m.prefix_length));
    add(t, r, 0, Number(end - a) / 2 ** 64);
    a = end;
  }
  return { method: 'walk', signals: t };
}

/** Counts per signal, or null when core lacks leafCoverage() and the snapshot is too big to walk. */
export function coverage(intel: IpIntel): Coverage | null {
  const withCore = intel as IpIntel & Partial<LeafCoverage>;
  if (typeof withCore.leafCoverage === 'function') return fromCore(withCore as IpIntel & LeafCoverage);
  const { ipv4_ranges, ipv6_ranges } = intel.info.counts;
  return ipv4_ranges + ipv6_ranges <= WALK_LIMIT ? walk(intel) : null;
}
