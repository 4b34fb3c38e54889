/**
 * The order the writer gives a snapshot's leaves and geo rows: most address
 * space first (issue 13, eleventh round in docs/design.md).
 *
 * A check reads one entry of `leaf.ids` and the cache slots of one geo row
 * and one network/signal pair, each found by id. Lookups land on rows in
 * proportion to the address space the rows hold, and that is very uneven:
 * on the world snapshot 6.5% of the leaves hold 90% of the IPv4 space, 2.5%
 * of the geo rows and 3.1% of the pairs too. Ids given most space first put
 * the rows that most lookups read side by side at the front of each table,
 * in few cache lines and pages, where the builder's order scattered them.
 * The answers are the same: ids are internal to a snapshot file.
 *
 * Pairs are numbered by the encoder in the order leaves first use them, so
 * leaves in this order number the pairs of the largest leaves first.
 *
 * @module
 */
import type { Ranges } from './flatten.js';
import type { SnapshotModel } from './model.js';

/** Space per leaf: IPv4 addresses, and IPv6 space in units of a /64 (fractions below it). */
export interface LeafSpace {
  readonly v4: Float64Array;
  readonly v6: Float64Array;
}

const TWO_64 = 2 ** 64;

function addSpace(r: Ranges<number>, bits: number, unit: number, out: Float64Array): void {
  const end = 1n << BigInt(bits);
  for (let i = 0; i < r.starts.length; i++) {
    const next = i + 1 < r.starts.length ? r.starts[i + 1]! : end;
    const leaf = r.values[i]!;
    out[leaf] = out[leaf]! + Number(next - r.starts[i]!) / unit;
  }
}

/** The space each leaf of `model` holds. */
export function leafSpace(model: SnapshotModel): LeafSpace {
  const n = model.leaves.length;
  const v4 = new Float64Array(n);
  const v6 = new Float64Array(n);
  addSpace(model.v4, 32, 1, v4);
  addSpace(model.v6, 128, TWO_64, v6);
  return { v4, v6 };
}

/** The space each geo row holds: the sum of its leaves' (`space`, by leaf). */
export function geoSpace(model: SnapshotModel, space: LeafSpace): LeafSpace {
  const v4 = new Float64Array(model.geo.length);
  const v6 = new Float64Array(model.geo.length);
  model.leaves.forEach((l, i) => {
    v4[l.geo] = v4[l.geo]! + space.v4[i]!;
    v6[l.geo] = v6[l.geo]! + space.v6[i]!;
  });
  return { v4, v6 };
}

/**
 * Ids `0 .. n-1` sorted by IPv4 space, then IPv6 space, largest first; equal
 * ones keep their order (so the result is deterministic).
 */
function largestFirst(v4: Float64Array, v6: Float64Array): Uint32Array {
  const ids = Uint32Array.from({ length: v4.length }, (_, i) => i);
  return ids.sort((a, b) => v4[b]! - v4[a]! || v6[b]! - v6[a]! || a - b);
}

/** `order` (new id -> old id) turned into old id -> new id. */
function inverse(order: Uint32Array): Uint32Array {
  const out = new Uint32Array(order.length);
  for (let i = 0; i < order.length; i++) out[order[i]!] = i;
  return out;
}

function renumbered(r: Ranges<number>, newId: Uint32Array): Ranges<number> {
  return { starts: r.starts, values: r.values.map((v) => newId[v]!) };
}

/**
 * `model` with its leaves and geo rows numbered most space first (a geo
 * row's space is its leaves'). Networks and signal sets keep their order:
 * a check reads them through the pair's slots, not by their own ids.
 * Assumes a model whose ids are in range (the encoder checks that first).
 */
export function largestFirstModel(model: SnapshotModel): SnapshotModel {
  const space = leafSpace(model);
  const geo = geoSpace(model, space);
  const geoOrder = largestFirst(geo.v4, geo.v6);
  const newGeo = inverse(geoOrder);
  const leafOrder = largestFirst(space.v4, space.v6);
  const newLeaf = inverse(leafOrder);
  return {
    ...model,
    geo: Array.from(geoOrder, (old) => model.geo[old]!),
    leaves: Array.from(leafOrder, (old) => {
      const l = model.leaves[old]!;
      return { geo: newGeo[l.geo]!, net: l.net, sig: l.sig };
    }),
    v4: renumbered(model.v4, newLeaf),
    v6: renumbered(model.v6, newLeaf),
  };
}
