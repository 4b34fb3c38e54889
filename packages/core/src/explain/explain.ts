/**
 * Explains one result: looks up what every role's source says at the
 * address in the sidecar (longest matching prefix, ASN table interval, the
 * ASN-keyed sets for the address's ASN), runs the same precedence rules the
 * builder ran (rules/classify.ts) with a trace, and checks that they give
 * the snapshot's answer before saying anything: a sidecar that does not
 * re-derive the result is `explain_mismatch`, never a wrong explanation.
 *
 * @module
 */
import { IpIntelError } from '../errors.js';
import { bigIntToText } from '../ip/address.js';
import { classify, EXPLAINED_FIELDS, NULL_GEO, type AddressFacts, type ExplainedField, type FactKey, type OperatorRow, type PublishedRange, type RouteFacts, type Sets } from '../rules/classify.js';
import { RULES, type RuleId } from '../rules/ids.js';
import type { NetworkRow, SignalRow } from '../snapshot/model.js';
import type { CheckResult, Explanation, ExplanationField, ExplanationSource, SourceInfo } from '../types.js';
import type { AsnEntry, Sidecar } from './decode.js';
import { intervalAt, intervalBounds, longestMatch, prefixAt } from './table-lookup.js';
import type { SidecarAsnRole, SidecarPrefixRole } from './format.js';

/** The sidecar role that answers each per-address fact. */
const PREFIX_FACT: Readonly<Partial<Record<FactKey, SidecarPrefixRole>>> = {
  route: 'routes',
  mapped: 'routesMapped',
  rir: 'rir',
  bogon: 'bogons',
  unallocated: 'unallocated',
  datacenterPublished: 'datacenterPublished',
  datacenterInferred: 'datacenterInferred',
  tor: 'tor',
  vpn: 'vpn',
  vpnBroad: 'vpnBroad',
  proxy: 'proxy',
  relay: 'relay',
  crawler: 'crawlers',
  resolver: 'resolvers',
  drop: 'drop',
  abuse: 'abuse',
};

/** What one role says at the address (one entry; asnTags has one per tag). */
interface Said {
  readonly role: string;
  readonly source: number;
  readonly matched: string;
  readonly value: unknown;
}

function mismatch(why: string): IpIntelError {
  return new IpIntelError('explain_mismatch', `the explain sidecar does not match the snapshot: ${why}`);
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export class Explainer {
  constructor(
    private readonly sidecar: Sidecar,
    private readonly sources: readonly SourceInfo[],
    private readonly hasRoas: boolean,
  ) {}

  /** What each role says at the address. */
  private said(version: 4 | 6, addr: bigint): Map<FactKey, Said[]> {
    const out = new Map<FactKey, Said[]>();
    const bits = version === 4 ? 32 : 128;
    for (const [fact, role] of Object.entries(PREFIX_FACT) as [FactKey, SidecarPrefixRole][]) {
      const t = this.sidecar.prefixes.get(`${role}${version}`);
      const i = t === undefined ? -1 : longestMatch(t, version, addr);
      if (t === undefined || i < 0) continue;
      const { start, length } = prefixAt(t, i);
      const prefix = `${bigIntToText(version, start)}/${length}`;
      if (length > bits) throw mismatch('a prefix is longer than its family');
      out.set(fact, [{ role, source: t.sources[i]!, matched: prefix, value: t.table[t.values[i]!] ?? null }]);
    }
    const asnTable = this.sidecar.intervals.get(`asn${version}`);
    const j = asnTable === undefined ? -1 : intervalAt(asnTable, addr);
    if (asnTable !== undefined && j >= 0) {
      const [first, last] = intervalBounds(asnTable, j);
      const matched = `${bigIntToText(version, first)}-${bigIntToText(version, last)}`;
      out.set('asn', [{ role: 'asn', source: asnTable.sources[j]!, matched, value: asnTable.table[asnTable.values![j]!] ?? null }]);
    }
    const asn = out.get('asn')?.[0]?.value;
    if (typeof asn === 'number' && asn !== 0) {
      for (const [role, entries] of this.sidecar.asns) {
        const list = entries.get(asn);
        if (list !== undefined) out.set(role, list.map((e: AsnEntry) => ({ role, source: e.source, matched: `AS${asn}`, value: e.value })));
      }
    }
    return out;
  }

  /** Facts and sets as the builder's combiner had them at this address. */
  private factsOf(said: Map<FactKey, Said[]>, org: string): { facts: AddressFacts; sets: Sets } {
    const v = (k: FactKey): unknown => said.get(k)?.[0]?.value;
    const has = (k: FactKey): boolean => said.has(k);
    const asnValue = v('asn') as number | undefined;
    const asn = asnValue ?? 0;
    const one = <T>(role: SidecarAsnRole, value: (x: unknown) => T): Map<number, T> => {
      const e = said.get(role)?.[0];
      return new Map<number, T>(e === undefined ? [] : [[asn, value(e.value)]]);
    };
    const facts: AddressFacts = {
      geo: null,
      asn: asnValue === undefined ? null : { asn, org },
      route: has('route') ? (v('route') as RouteFacts) : null,
      mapped: has('mapped') ? ((v('mapped') as number[])[0] ?? null) : null,
      rir: has('rir') ? (v('rir') as { date: string | null; country: string | null }) : null,
      bogon: has('bogon'),
      unallocated: has('unallocated'),
      datacenterPublished: has('datacenterPublished') ? (v('datacenterPublished') as PublishedRange) : null,
      datacenterInferred: has('datacenterInferred') ? str(v('datacenterInferred')) : null,
      tor: has('tor'),
      vpn: has('vpn') ? str(v('vpn')) : null,
      vpnBroad: has('vpnBroad') ? str(v('vpnBroad')) : null,
      proxy: has('proxy'),
      relay: has('relay') ? str(v('relay')) : null,
      crawler: has('crawler') ? str(v('crawler')) : null,
      resolver: has('resolver'),
      drop: has('drop'),
      abuse: has('abuse'),
    };
    const sets: Sets = {
      hostingAsns: one('hostingAsns', str),
      asnClass: one('asnClass', str),
      operators: one('operators', (x) => x as OperatorRow),
      dropAsns: new Set(one('dropAsns', () => true).keys()),
      vpnAsnWide: new Set(one('vpnAsnWide', () => true).keys()),
      asnTags: new Map(said.has('asnTags') ? [[asn, new Set(said.get('asnTags')!.map((e) => str(e.value)))]] : []),
    };
    return { facts, sets };
  }

  private source(s: Said): ExplanationSource {
    const row = this.sources[s.source];
    if (row === undefined) throw mismatch(`source row ${s.source} is not in the snapshot (it has ${this.sources.length})`);
    return { source: row.id, data_date: row.data_date, role: s.role, matched: s.matched, value: s.value };
  }

  /** The explanation of `result` (the address's check() result). `geoMatched`: the snapshot block the geo row holds for. */
  explain(result: CheckResult, addr: bigint, geoMatched: string): Explanation {
    const said = this.said(result.version, addr);
    const geoSpan = this.sidecar.intervals.get(`geo${result.version}`);
    const g = geoSpan === undefined ? -1 : intervalAt(geoSpan, addr);
    // The span covers the gaps between the source's rows too: it answered only where the result has a geo row.
    const hasGeo = Object.values(result.geo).some((v) => v !== null);
    if (g >= 0 && hasGeo) said.set('geo', [{ role: 'geo', source: geoSpan!.sources[g]!, matched: geoMatched, value: null }]);
    // The sidecar keeps the ASN table's ASNs, not its names: the name is the snapshot's (docs/snapshot-format.md).
    // The route's RPKI statuses came from the ROA set: it is named beside the route.
    const route = said.get('route')?.[0];
    const roas = this.sidecar.header.roas_source;
    if (route !== undefined && roas !== null) {
      const { origins, rpki } = route.value as { origins: number[]; rpki: string[] };
      const at = origins.indexOf(result.network.asn);
      said.set('roas', [{ role: 'roas', source: roas, matched: route.matched, value: at < 0 ? null : `AS${origins[at]} ${rpki[at]}` }]);
    }
    const { facts, sets } = this.factsOf(said, result.network.as_org);
    const decided = new Map<ExplainedField, { rule: RuleId; facts: readonly FactKey[] }>();
    const again = classify({ ...facts, geo: said.has('geo') ? NULL_GEO : null }, sets, this.hasRoas, (field, rule, used) => decided.set(field, { rule, facts: used }));
    sameAnswer(again.network, again.signals, result);
    const fields: ExplanationField[] = EXPLAINED_FIELDS.map((field) => {
      const d = decided.get(field);
      if (d === undefined) throw mismatch(`no rule decided ${field}`);
      const sources = d.facts.flatMap((k) => (said.get(k) ?? []).map((s) => this.source(s)));
      return { field, value: valueAt(result, field), rule: d.rule, rule_text: RULES[d.rule], sources };
    });
    return { build_date: this.sidecar.header.snapshot.build_date, fields };
  }
}

function valueAt(result: CheckResult, field: ExplainedField): unknown {
  if (field === 'geo') return result.geo;
  const [part, key] = field.split('.') as ['network' | 'signals', string];
  return (result[part] as unknown as Record<string, unknown>)[key];
}

/** Throws `explain_mismatch` unless the rules re-derived the snapshot's network and signals. */
function sameAnswer(network: NetworkRow, signals: SignalRow, result: CheckResult): void {
  const n = result.network as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(network)) {
    if (k === 'routing_inferred') {
      const label = result.evidence.routing;
      if (result.network.is_announced && label !== 'unavailable' && (label === 'inferred') !== v) throw mismatch('routing evidence differs');
      continue;
    }
    if (n[k] !== v) throw mismatch(`network.${k} is ${JSON.stringify(n[k])} in the snapshot, ${JSON.stringify(v)} from the sidecar`);
  }
  const s = result.signals as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(signals)) {
    if (k === 'connection_evidence') continue;
    if (s[k] !== v) throw mismatch(`signals.${k} is ${JSON.stringify(s[k])} in the snapshot, ${JSON.stringify(v)} from the sidecar`);
  }
}
