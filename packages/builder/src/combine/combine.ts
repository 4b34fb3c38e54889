/**
 * Combines every source into a snapshot model: one layer per role and family,
 * a sweep over all layers' boundaries, the precedence rules (classify.ts) at
 * each distinct combination, and interned tables. Deterministic: the same
 * input gives the same model (and so byte-identical snapshot).
 *
 * @module
 */
import type { RpkiStatus } from '@ipintel/core';
import { pushRange, type GeoRow, type LeafRow, type NetworkRow, type Ranges, type SignalRow, type SnapshotModel } from '@ipintel/core/writer';
import { classify, NULL_GEO, type AddressFacts } from './classify.js';
import type { CombineInput, RouteValidator } from './input.js';
import { intervalLayer, prefixLayer, presenceLayer, type Layer } from './layers.js';
import { sweep } from './sweep.js';

type Route = { readonly origins: readonly number[]; readonly rpki: RpkiStatus };

/** RFC 6811 per route; with several origins (MOAS) the route is valid if any origin is. */
function routeStatus(validate: RouteValidator | null, version: 4 | 6, start: bigint, length: number, origins: readonly number[]): RpkiStatus {
  if (validate === null) return 'unknown';
  let status: RpkiStatus = 'not-found';
  for (const o of origins) {
    const s = validate(version, start, length, o);
    if (s === 'valid') return 'valid';
    if (s === 'invalid') status = 'invalid';
  }
  return status;
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
  readonly leafIds: Map<string, number>;
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

function combineFamily(version: 4 | 6, input: CombineInput, t: Tables): { ranges: Ranges<number>; boundaries: number } {
  const fam = version === 4 ? input.v4 : input.v6;
  const str = (v: string | null): string => v ?? '';
  // 1. One layer per role.
  const layers = {
    geo: intervalLayer(version, fam.geo, (g) => JSON.stringify(g)),
    asn: intervalLayer(version, fam.asn, (a) => `${a.asn}|${a.org}`),
    route: prefixLayer<Route>(
      version,
      input.routes
        .filter((r) => r.version === version)
        .map((r) => ({ ...r, value: { origins: r.value.origins, rpki: routeStatus(input.validate, version, r.start, r.length, r.value.origins) } })),
      (r) => `${r.origins.join('_')}|${r.rpki}`,
    ),
    rir: prefixLayer(version, input.rir, (r) => `${str(r.date)}|${str(r.country)}`),
    bogon: presenceLayer(version, input.bogons),
    unallocated: presenceLayer(version, input.unallocated),
    dcPublished: prefixLayer(version, input.datacenterPublished, (d) => d.provider),
    dcInferred: prefixLayer(version, input.datacenterInferred, (d) => str(d.provider)),
    tor: presenceLayer(version, input.tor),
    vpn: presenceLayer(version, input.vpn),
    vpnBroad: presenceLayer(version, input.vpnBroad),
    proxy: presenceLayer(version, input.proxy),
    relay: prefixLayer(version, input.relay, (r) => r.provider),
    crawler: prefixLayer(version, input.crawlers, (c) => c.name),
    resolver: presenceLayer(version, input.resolvers),
    drop: presenceLayer(version, input.drop),
    abuse: presenceLayer(version, input.abuse),
    abuseBroad: presenceLayer(version, input.abuseBroad),
  };
  const names = Object.keys(layers) as (keyof typeof layers)[];
  const list: Layer<unknown>[] = names.map((n) => layers[n] as Layer<unknown>);
  // Position of each layer in the sweep's value vector.
  const I = Object.fromEntries(names.map((n, i) => [n, i])) as Record<keyof typeof layers, number>;
  const at = <V>(layer: Layer<V>, v: number): V | null => (v === 0 ? null : layer.table[v - 1]!);
  const hasRoas = input.validate !== null;

  // 2. Sweep: each distinct combination of layer values is classified once.
  const leafOfCombo = new Map<string, number>();
  const out: Ranges<number> = { starts: [], values: [] };
  let boundaries = 0;
  sweep(
    list.map((l) => l.ranges),
    (start, v) => {
      boundaries++;
      let key = '';
      for (let j = 0; j < v.length; j++) key += `${v[j]},`;
      let leaf = leafOfCombo.get(key);
      if (leaf === undefined) {
        const facts: AddressFacts = {
          geo: at(layers.geo, v[I.geo]!),
          asn: at(layers.asn, v[I.asn]!),
          route: at(layers.route, v[I.route]!),
          rir: at(layers.rir, v[I.rir]!),
          bogon: v[I.bogon] !== 0,
          unallocated: v[I.unallocated] !== 0,
          datacenterPublished: at(layers.dcPublished, v[I.dcPublished]!)?.provider ?? null,
          datacenterInferred: v[I.dcInferred] === 0 ? null : str(at(layers.dcInferred, v[I.dcInferred]!)!.provider),
          tor: v[I.tor] !== 0,
          vpn: v[I.vpn] !== 0,
          vpnBroad: v[I.vpnBroad] !== 0,
          proxy: v[I.proxy] !== 0,
          relay: at(layers.relay, v[I.relay]!)?.provider ?? null,
          crawler: at(layers.crawler, v[I.crawler]!)?.name ?? null,
          resolver: v[I.resolver] !== 0,
          drop: v[I.drop] !== 0,
          abuse: v[I.abuse] !== 0,
          abuseBroad: v[I.abuseBroad] !== 0,
        };
        const c = classify(facts, input, hasRoas);
        let geoId = t.geoIds.get(c.geo);
        if (geoId === undefined) {
          geoId = t.geo.length;
          t.geo.push(c.geo);
          t.geoIds.set(c.geo, geoId);
        }
        const net = intern(t.networks, t.netIds, c.network);
        const sig = intern(t.signals, t.sigIds, c.signals);
        leaf = intern(t.leaves, t.leafIds, { geo: geoId, net, sig });
        leafOfCombo.set(key, leaf);
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
  };
  const v4 = combineFamily(4, input, t);
  const v6 = combineFamily(6, input, t);
  const model: SnapshotModel = {
    build_date: input.buildDate,
    attribution_url: input.attributionUrl,
    has_rpki: input.validate !== null,
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
