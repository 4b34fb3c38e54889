/**
 * Address counts per signal for `ipintel info`: how many IPv4 addresses and
 * how many IPv6 /64 blocks (fractional for ranges finer than /64) carry each
 * signal.
 *
 * One pass over the index (`leafCoverage` of @ipintel/core/internal: per
 * leaf id, the IPv4 address count and IPv6 /64 count mapped to it), then each
 * leaf's result (`resultForLeaf`) says which signals those addresses carry.
 *
 * @module
 */
import type { CheckResult, IpIntel } from '@ipintel/core';
import { leafCoverage, resultForLeaf } from '@ipintel/core/internal';

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
  { name: 'is_anycast', on: (r) => r.signals.is_anycast },
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
  readonly signals: Readonly<Record<string, SignalCount>>;
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

/** Counts per signal over the whole address space. */
export function coverage(intel: IpIntel): Coverage {
  const { v4, v6 } = leafCoverage(intel);
  const t = emptyTally();
  for (let leaf = 0; leaf < v4.length; leaf++) {
    const a = v4[leaf]!;
    const b = v6[leaf]!;
    if (a > 0 || b > 0) add(t, resultForLeaf(intel, leaf, '0.0.0.0', 4), a, b);
  }
  return { signals: t };
}
