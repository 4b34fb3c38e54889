/**
 * The quality report as text: one table of labels (share of public IPv4,
 * addresses, top ASNs) and, from a build, the ASNs whose tags conflict.
 * Printed by `ipintel build` and `ipintel info --quality`; the README's
 * accuracy section is copied from it.
 *
 * @module
 */
import { QUALITY_LABELS, QUALITY_LIMITS, WORLD_SCALE_IPV4, type QualityReport } from '@ipintel/core/internal';
import { table } from '../text-table.js';

/** An ASN conflict as the builder reports it. */
export interface ConflictRow {
  readonly asn: number;
  readonly tags: readonly string[];
  readonly addresses: number;
}

const pct = (x: number): string => `${(100 * x).toFixed(2)}%`;
const millions = (n: number): string => `${(n / 1e6).toFixed(n >= 1e7 ? 1 : 2)}M`;

export function renderQuality(q: QualityReport, conflicts: readonly ConflictRow[] = [], orgOf: (asn: number) => string = () => ''): string {
  const scale = q.mapped_ipv4 >= WORLD_SCALE_IPV4 ? 'world scale: limits apply' : 'below world scale: limits not applied';
  const out = [
    `Quality (public IPv4, address-weighted): ${q.public_ipv4.toLocaleString('en-US')} public addresses, ${q.mapped_ipv4.toLocaleString('en-US')} with an ASN (${scale})`,
    table(
      ['label', 'share', 'limit', 'addresses', 'top ASNs'],
      QUALITY_LABELS.map((l) => {
        const s = q.labels[l];
        const limit = QUALITY_LIMITS[l];
        const top = s.top.slice(0, 4).map((a) => `AS${a.asn} ${a.org.slice(0, 18)} ${millions(a.addresses)}`).join('; ');
        return [l, pct(s.share), limit === undefined ? '-' : pct(limit), millions(s.addresses), top];
      }),
      [false, true, true, true, false],
    ),
  ];
  if (conflicts.length > 0) {
    out.push('', 'ASNs whose bgp.tools tags conflict (largest first; docs/data.md says how each is labelled)');
    out.push(table(['ASN', 'tags', 'addresses', 'org'], conflicts.map((c) => [`AS${c.asn}`, c.tags.join('+'), millions(c.addresses), orgOf(c.asn)]), [false, false, true, false]));
  }
  return `${out.join('\n')}\n`;
}
