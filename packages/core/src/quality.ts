/**
 * The quality report of a snapshot: over public IPv4 space, weighted by
 * addresses, the share of each connection type and signal and the ASNs
 * that contribute most to each; and the documented limits a world-scale
 * snapshot must stay within (docs/data.md "Quality limits"). The build
 * prints it and fails above a limit; `ipintel info --quality` prints it for
 * any snapshot. One pass over the leaves: each leaf is one answer, and its
 * weight is the number of IPv4 addresses that map to it.
 *
 * @module
 */
import type { IpIntel } from './intel.js';
import { leafCount, leafCoverage, resultForLeaf } from './leaves.js';
import type { CheckResult, ConnectionType } from './types.js';

/** The labels the report counts: every connection type, then the signals and routing states. */
export const QUALITY_LABELS = [
  'datacenter', 'satellite', 'mobile', 'isp', 'unknown',
  'is_tor', 'is_vpn', 'is_proxy', 'is_relay', 'is_public_resolver', 'is_drop_listed', 'recent_abuse', 'is_verified_bot', 'is_anycast',
  'not_announced', 'routing_inferred', 'rpki_invalid',
] as const;

export type QualityLabel = (typeof QUALITY_LABELS)[number];

const CONNECTION_TYPES: readonly ConnectionType[] = ['datacenter', 'satellite', 'mobile', 'isp', 'unknown'];

/** Which labels a result carries. */
function labelsOf(r: CheckResult): QualityLabel[] {
  const s = r.signals;
  const out: QualityLabel[] = [s.connection_type];
  for (const k of ['is_tor', 'is_vpn', 'is_proxy', 'is_relay', 'is_public_resolver', 'is_drop_listed', 'recent_abuse', 'is_verified_bot', 'is_anycast'] as const) {
    if (s[k]) out.push(k);
  }
  if (!r.network.is_announced) out.push('not_announced');
  else if (r.evidence.routing === 'inferred') out.push('routing_inferred');
  if (r.network.rpki === 'invalid') out.push('rpki_invalid');
  return out;
}

export interface AsnShare {
  readonly asn: number;
  readonly org: string;
  readonly addresses: number;
}

export interface LabelShare {
  /** Public IPv4 addresses with the label. */
  readonly addresses: number;
  /** addresses / public IPv4 addresses (0 when there are none). */
  readonly share: number;
  /** The ASNs holding most of the label's addresses, largest first. */
  readonly top: readonly AsnShare[];
}

export interface QualityReport {
  /** Public (non-bogon) IPv4 addresses in the snapshot. */
  readonly public_ipv4: number;
  /** Public IPv4 addresses with an ASN: how much of the world the snapshot covers. */
  readonly mapped_ipv4: number;
  readonly labels: Readonly<Record<QualityLabel, LabelShare>>;
  /** Public IPv4 addresses per ASN (every ASN), for callers that weigh ASN lists. */
  readonly asnAddresses: ReadonlyMap<number, number>;
}

/** Counts every label over public IPv4 space; `top` ASNs per label (default 8). */
export function qualityReport(intel: IpIntel, options: { top?: number } = {}): QualityReport {
  const top = options.top ?? 8;
  const weights = leafCoverage(intel).v4;
  const n = leafCount(intel);
  const totals = new Map<QualityLabel, number>();
  const byAsn = new Map<QualityLabel, Map<number, number>>();
  const orgs = new Map<number, string>();
  const asnAddresses = new Map<number, number>();
  let publicV4 = 0;
  let mapped = 0;
  for (let leaf = 0; leaf < n; leaf++) {
    const w = weights[leaf]!;
    if (w === 0) continue;
    const r = resultForLeaf(intel, leaf, '0.0.0.0', 4);
    if (r.network.is_bogon) continue;
    publicV4 += w;
    const asn = r.network.asn;
    if (asn !== 0) {
      mapped += w;
      orgs.set(asn, r.network.as_org);
      asnAddresses.set(asn, (asnAddresses.get(asn) ?? 0) + w);
    }
    for (const label of labelsOf(r)) {
      totals.set(label, (totals.get(label) ?? 0) + w);
      let m = byAsn.get(label);
      if (!m) byAsn.set(label, (m = new Map<number, number>()));
      m.set(asn, (m.get(asn) ?? 0) + w);
    }
  }
  const labels = {} as Record<QualityLabel, LabelShare>;
  for (const label of QUALITY_LABELS) {
    const addresses = totals.get(label) ?? 0;
    const ranked = [...(byAsn.get(label) ?? new Map<number, number>())]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, top)
      .map(([asn, a]) => ({ asn, org: orgs.get(asn) ?? '', addresses: a }));
    labels[label] = { addresses, share: publicV4 === 0 ? 0 : addresses / publicV4, top: ranked };
  }
  return { public_ipv4: publicV4, mapped_ipv4: mapped, labels, asnAddresses };
}

/**
 * The most of public IPv4 a label may hold in a world-scale snapshot. Each
 * limit sits well above what the sources support today (the README's
 * accuracy section) and below what an ASN-wide or aggregate mistake gives:
 * a mixed operator's `mobile` tag applied to all its space put `mobile` at
 * 27.5%, FireHOL level 1 put `recent_abuse` on 2.2M unrouted addresses.
 */
export const QUALITY_LIMITS: Readonly<Partial<Record<QualityLabel, number>>> = {
  mobile: 0.1,
  satellite: 0.01,
  datacenter: 0.2,
  is_vpn: 0.01,
  is_proxy: 0.005,
  recent_abuse: 0.005,
  is_tor: 0.001,
  is_drop_listed: 0.01,
  rpki_invalid: 0.01,
  // Lists of single services (crawlers, relay egress, resolvers) hold a few hundred thousand addresses at most;
  // the limit is what stops one over-wide line (a /1 in a crawler list: half the space "verified bot").
  is_verified_bot: 0.001,
  is_relay: 0.001,
  is_public_resolver: 0.001,
  is_anycast: 0.01,
};

/** A snapshot is world-scale when its ASN table maps at least this many public IPv4 addresses. */
export const WORLD_SCALE_IPV4 = 1e9;

export interface QualityFailure {
  readonly label: QualityLabel;
  readonly share: number;
  readonly limit: number;
}

/** The labels above their limit; none for a snapshot smaller than world scale (fixtures, regional builds). */
export function qualityFailures(report: QualityReport, limits: Readonly<Partial<Record<QualityLabel, number>>> = QUALITY_LIMITS): QualityFailure[] {
  if (report.mapped_ipv4 < WORLD_SCALE_IPV4) return [];
  const out: QualityFailure[] = [];
  for (const label of QUALITY_LABELS) {
    const limit = limits[label];
    if (limit !== undefined && report.labels[label].share > limit) out.push({ label, share: report.labels[label].share, limit });
  }
  return out;
}

/** Whether a label is a connection type. */
export function isConnectionLabel(label: QualityLabel): label is ConnectionType {
  return (CONNECTION_TYPES as readonly string[]).includes(label);
}
