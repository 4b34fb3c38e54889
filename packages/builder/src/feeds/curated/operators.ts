/**
 * A small curated table of operators whose kind the public ASN tags cannot
 * tell: mobile-first operators that bgp.tools also tags `dsl` (so the tag
 * rule keeps them `isp`, like Deutsche Telekom or AT&T, whose fixed lines
 * dominate), and the CDN operators whose own ASNs are their edge network
 * (their published lists cover only part of it). Built in, evidence
 * `inferred`: each row is a judgement about the bulk of an ASN, written
 * down here with its reason, and measured on the world snapshot (the
 * quality report names the ASNs each label comes from).
 *
 * Adding a row: only an operator whose public description says the ASN is
 * (overwhelmingly) that kind, with the reason in `why`.
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import type { AsnsFound } from '../types.js';

export interface OperatorKind {
  readonly kind: 'mobile' | 'cdn';
  /** Display name: the datacenter provider for a CDN. */
  readonly name: string;
  /** The operator announces its edge space anycast (every address of the ASN). */
  readonly anycast: boolean;
  readonly why: string;
}

const row = (kind: OperatorKind['kind'], name: string, anycast: boolean, why: string): OperatorKind => Object.freeze({ kind, name, anycast, why });

/** By ASN. */
export const OPERATORS: ReadonlyMap<number, OperatorKind> = new Map([
  [21928, row('mobile', 'T-Mobile US', false, 'T-Mobile USA wireless network; home internet is fixed wireless over the same mobile network')],
  [55836, row('mobile', 'Reliance Jio', false, 'Jio: India\'s largest mobile operator; tagged dsl for JioFiber, a minority of its space')],
  [3209, row('mobile', 'Vodafone Germany', false, 'Vodafone GmbH mobile network (its cable network is AS31334 and others)')],
  [13335, row('cdn', 'Cloudflare', true, 'Cloudflare\'s anycast edge, including 1.1.1.1 and WARP egress (104.28.0.0/16)')],
  [54113, row('cdn', 'Fastly', true, 'Fastly\'s anycast edge network')],
  [20940, row('cdn', 'Akamai', false, 'Akamai edge servers (unicast, DNS-steered)')],
  [16625, row('cdn', 'Akamai', false, 'Akamai edge servers (unicast, DNS-steered)')],
]);

export function curatedOperators(): AsnsFound<OperatorKind> {
  return { asns: new Map(OPERATORS), rejected: [], dataDate: null };
}

export const CURATED_OPERATORS = defineFeed({
  id: 'ipintel-operators',
  publisher: 'ipintel (curated)',
  url: 'https://github.com/ipintel/ipintel/blob/main/packages/builder/src/feeds/curated/operators.ts',
  licence: 'MIT',
  attribution_required: false,
  evidence: 'inferred',
  note: 'built-in table: mobile-first operators the ASN tags call mixed, and CDN operators\' own ASNs (docs/data.md)',
  format: 'built-in table (ASN, kind, name, reason)',
  refresh: '365d',
  redistributable: true,
  role: 'asn-kind',
  use: 'build',
  origin: 'built-in',
  parse: curatedOperators,
});
