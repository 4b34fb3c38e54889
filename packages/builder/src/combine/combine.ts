/**
 * Combines every source into a snapshot model: one layer per role and family,
 * a sweep over all layers' boundaries, the precedence rules (core's rules/classify.ts) at
 * each distinct combination, and interned tables. Deterministic: the same
 * input gives the same model (and so byte-identical snapshot).
 *
 * @module
 */
import type { RpkiStatus } from '@ipintel/core';
import {
  classify,
  NULL_GEO,
  pushRange,
  type AddressFacts,
  type GeoRow,
  type LeafRow,
  type NetworkRow,
  type Ranges,
  type RouteFacts,
  type SignalRow,
  type SnapshotModel,
} from '@ipintel/core/writer';
import type { CombineInput, RouteValidator } from './input.js';
import { intervalLayer, prefixLayer, presenceLayer, type Layer } from './layers.js';
import { sweep } from './sweep.js';

/** RFC 6811 for the route with each of its origins (MOAS routes have several); classify picks the shown one's. */
function routeFacts(validate: RouteValidator | null, version: 4 | 6, start: bigint, length: number, origins: readonly number[]): RouteFacts {
  return { origins, rpki: origins.map((o): RpkiStatus => (validate === null ? 'unknown' : validate(version, start, length, o))) };
}

export interface CombineStats {
  readonly v4Boundaries: number;
  readonly v6Boundaries: number;
  readonly combinations: number;
}

interface Tables {
  readonly geo: GeoRow[];
  readonly geoIds: Map<GeoRow, number>;
  readonly networks: NetworkRow[];
  readonly netIds: Map<string, number>;
  readonly signals: SignalRow[];
  readonly sigIds: Map<string, number>;
  readonly leaves: LeafRow[];
  /** geo id * 2^24 + network/signal pair id -> leaf id. */
  readonly leafIds: Map<number, number>;
  /** network id * 2^20 + signal id -> pair id (pairs are shared by both families). */
  readonly pairIds: Map<number, number>;
  readonly pairs: { readonly net: number; readonly sig: number }[];
}

function intern<T>(list: T[], ids: Map<string, number>, row: T): number {
  const key = JSON.stringify(row);
  let id = ids.get(key);
  if (id === undefined) {
    id = list.length;
    list.push(row);
    ids.set(key, id);
  }
  return id;
}

/** Interns (a, b) pairs of small non-negative integers into dense ids, with numeric keys. */
class PairIds {
  private readonly ids = new Map<number, number>();
  constructor(private readonly width: number) {}
  id(a: number, b: number): number {
    const key = a * this.width + b;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(key, id);
    }
    return id;
  }
}

function combineFamily(version: 4 | 6, input: CombineInput, t: Tables): { ranges: Ranges<number>; boundaries: number } {
  const fam = version === 4 ? input.v4 : input.v6;
  const str = (v: string | null): string => v ?? '';
  // 1. One layer per role. Order matters for speed only: layers that change
  //    least come first, geo (which changes at most boundaries) last.
  const layers = {
    bogon: presenceLayer(version, input.bogons),
    unallocated: presenceLayer(version, input.unallocated),
    tor: presenceLayer(version, input.tor),
    vpn: prefixLayer(version, input.vpn, (v) => str(v.brand)),
    vpnBroad: prefixLayer(version, input.vpnBroad, (v) => str(v.brand)),
    proxy: presenceLayer(version, input.proxy),
    relay: prefixLayer(version, input.relay, (r) => r.provider),
    crawler: prefixLayer(version, input.crawlers, (c) => c.name),
    resolver: presenceLayer(version, input.resolvers),
    drop: presenceLayer(version, input.drop),
    abuse: presenceLayer(version, input.abuse),
    dcPublished: prefixLayer(version, input.datacenterPublished, (d) => `${d.provider}|${d.cdn}|${d.anycast}`),
    dcInferred: prefixLayer(version, input.datacenterInferred, (d) => str(d.provider)),
    rir: prefixLayer(version, input.rir, (r) => `${str(r.date)}|${str(r.country)}`),
    route: prefixLayer<RouteFacts>(
      version,
      input.routes
        .filter((r) => r.version === version)
        .map((r) => ({ ...r, value: routeFacts(input.validate, version, r.start, r.length, r.value.origins) })),
      (r) => `${r.origins.join('_')}|${r.rpki.join('_')}`,
    ),
    mapped: prefixLayer(version, input.routesMapped, (r) => r.origins.join('_')),
    asn: intervalLayer(version, fam.asn, (a) => `${a.asn}|${a.org}`),
    geo: intervalLayer(version, fam.geo, (g) => JSON.stringify(g)),
  };
  const names = Object.keys(layers) as (keyof typeof layers)[];
  const list: Layer<unknown>[] = names.map((n) => layers[n] as Layer<unknown>);
  // Position of each layer in the sweep's value vector.
  const I = Object.fromEntries(names.map((n, i) => [n, i])) as Record<keyof typeof layers, number>;
  const at = <V>(layer: Layer<V>, v: number): V | null => (v === 0 ? null : layer.table[v - 1]!);
  const hasRoas = input.validate !== null;
  // Without a BGP table of this family, "not announced" rests on the asmap alone (routing evidence inferred).
  const bgpTable = input.routes.some((r) => r.version === version);
  const geoLayer = I.geo;

  // 2. Combination ids, built layer by layer: combo[j] = id of (combo[j-1], value of layer j).
  //    Each level interns numeric pairs; only levels from the first changed layer are redone.
  const widths = list.map((l) => l.table.length + 1);
  const levels = widths.map((w) => new PairIds(w));
  const combo = new Int32Array(list.length);
  // Per non-geo combination: its network/signal pair and whether it is a bogon (no geo).
  const classified: { pair: number; bogon: boolean }[] = [];
  // Geo layer value -> geo table id.
  const geoIdOf = new Int32Array(widths[geoLayer]!).fill(-1);
  const geoId = (v: number): number => {
    let id = geoIdOf[v]!;
    if (id < 0) {
      const row = at(layers.geo, v) ?? NULL_GEO;
      id = t.geoIds.get(row) ?? -1;
      if (id < 0) {
        id = t.geo.length;
        t.geo.push(row);
        t.geoIds.set(row, id);
      }
      geoIdOf[v] = id;
    }
    return id;
  };
  const out: Ranges<number> = { starts: [], values: [] };
  let boundaries = 0;
  sweep(
    list.map((l) => l.ranges),
    (start, v, changed) => {
      boundaries++;
      // 3. Re-derive the combination ids of the non-geo layers from the first one that changed.
      for (let j = Math.min(changed, geoLayer); j < geoLayer; j++) combo[j] = levels[j]!.id(j === 0 ? 0 : combo[j - 1]!, v[j]!);
      const nonGeo = combo[geoLayer - 1]!;
      let c = classified[nonGeo];
      if (c === undefined) {
        const facts: AddressFacts = {
          geo: null,
          asn: at(layers.asn, v[I.asn]!),
          route: at(layers.route, v[I.route]!),
          mapped: at(layers.mapped, v[I.mapped]!)?.origins[0] ?? null,
          rir: at(layers.rir, v[I.rir]!),
          bogon: v[I.bogon] !== 0,
          unallocated: v[I.unallocated] !== 0,
          datacenterPublished: at(layers.dcPublished, v[I.dcPublished]!),
          datacenterInferred: v[I.dcInferred] === 0 ? null : str(at(layers.dcInferred, v[I.dcInferred]!)!.provider),
          tor: v[I.tor] !== 0,
          vpn: v[I.vpn] === 0 ? null : str(at(layers.vpn, v[I.vpn]!)!.brand),
          vpnBroad: v[I.vpnBroad] === 0 ? null : str(at(layers.vpnBroad, v[I.vpnBroad]!)!.brand),
          proxy: v[I.proxy] !== 0,
          relay: at(layers.relay, v[I.relay]!)?.provider ?? null,
          crawler: at(layers.crawler, v[I.crawler]!)?.name ?? null,
          resolver: v[I.resolver] !== 0,
          drop: v[I.drop] !== 0,
          abuse: v[I.abuse] !== 0,
          bgpTable,
        };
        const r = classify(facts, input, hasRoas);
        const net = intern(t.networks, t.netIds, r.network);
        const sig = intern(t.signals, t.sigIds, r.signals);
        if (sig >= 1_048_576 || t.pairs.length >= 16_777_216) throw new RangeError('too many distinct signal sets for the combiner keys');
        const key = net * 1_048_576 + sig;
        let pair = t.pairIds.get(key);
        if (pair === undefined) {
          pair = t.pairs.length;
          t.pairs.push({ net, sig });
          t.pairIds.set(key, pair);
        }
        c = { pair, bogon: r.network.is_bogon };
        classified[nonGeo] = c;
      }
      // 4. The leaf: geo row (none for a bogon) with the network/signal pair.
      const g = c.bogon ? 0 : geoId(v[geoLayer]!);
      const key = g * 16_777_216 + c.pair;
      let leaf = t.leafIds.get(key);
      if (leaf === undefined) {
        leaf = t.leaves.length;
        t.leaves.push({ geo: g, net: t.pairs[c.pair]!.net, sig: t.pairs[c.pair]!.sig });
        t.leafIds.set(key, leaf);
      }
      pushRange(out, start, leaf);
    },
  );
  return { ranges: out, boundaries };
}

/** Builds the snapshot model from every source. */
export function combine(input: CombineInput): { model: SnapshotModel; stats: CombineStats } {
  const t: Tables = {
    geo: [NULL_GEO],
    geoIds: new Map([[NULL_GEO, 0]]),
    networks: [],
    netIds: new Map(),
    signals: [],
    sigIds: new Map(),
    leaves: [],
    leafIds: new Map(),
    pairIds: new Map(),
    pairs: [],
  };
  const v4 = combineFamily(4, input, t);
  const v6 = combineFamily(6, input, t);
  const model: SnapshotModel = {
    build_date: input.buildDate,
    attribution_url: input.attributionUrl,
    has_rpki: input.validate !== null,
    unavailable: input.unavailable,
    sources: input.sources,
    geo: t.geo,
    networks: t.networks,
    signals: t.signals,
    leaves: t.leaves,
    v4: v4.ranges,
    v6: v6.ranges,
  };
  return { model, stats: { v4Boundaries: v4.boundaries, v6Boundaries: v6.boundaries, combinations: t.leaves.length } };
}
