/**
 * The MMDB search tree, built from contiguous ranges in one depth-first pass.
 *
 * Input: per family, ranges covering the whole space in address order, each
 * with a record (a data offset, or NO_DATA). A prefix whose addresses all lie
 * in one range becomes a record; any other prefix becomes a node whose two
 * halves are built the same way. With equal neighbours merged first, this
 * gives the smallest tree for the ranges: a node exists exactly where a
 * boundary between two different records falls strictly inside its prefix.
 * The cursor only moves forward, so the work is O(nodes + ranges).
 *
 * IPv4 and IPv6 share one 128-bit tree (ip_version 6):
 * - IPv4 lives at ::/96 (where every MMDB reader looks up an IPv4 address in
 *   an IPv6 tree). The IPv6 ranges inside ::/96 are not stored: an IPv6
 *   lookup of ::a.b.c.d (deprecated IPv4-compatible form) reads the IPv4 data.
 * - ::ffff:0:0/96 (IPv4-mapped) points at the IPv4 subtree, as `check()`
 *   answers a mapped address as IPv4.
 * - Nothing else is aliased: 2002::/16 (6to4) and 2001::/32 (Teredo) keep
 *   the snapshot's own IPv6 answers, as `check()` does.
 *
 * Records are kept as numbers until the node count is known: a node id
 * (>= 0), NO_DATA (-1), or a data offset d stored as -(d + 2).
 *
 * @module
 */
import { mergeEqual, type Ranges } from '../ranges.js';

/** Ranges of one family whose values are data offsets, or NO_DATA. */
export type TreeRanges = Ranges;

export const NO_DATA = -1;

/** A record as the tree stores it before serialisation: a data offset d is -(d + 2). */
export const dataRecord = (offset: number): number => -(offset + 2);

export class SearchTree {
  left: Int32Array<ArrayBuffer> = new Int32Array(1 << 16);
  right: Int32Array<ArrayBuffer> = new Int32Array(1 << 16);
  count = 0;

  node(): number {
    if (this.count === this.left.length) {
      const grow = (a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.left = grow(this.left);
      this.right = grow(this.right);
    }
    return this.count++;
  }
}

/** Mask of the top `bits` bits of a 32-bit word (0..32). */
const topMask = (bits: number): number => (bits <= 0 ? 0 : bits >= 32 ? 0xffffffff : (0xffffffff << (32 - bits)) >>> 0);

/** True when the top `depth` bits of `a[ai..]` and `b` agree (w words each). */
function samePrefix(a: Uint32Array, ai: number, b: Uint32Array, w: number, depth: number): boolean {
  for (let k = 0; k < w; k++) {
    const bits = depth - 32 * k;
    if (bits <= 0) return true;
    const m = topMask(bits);
    if (((a[ai + k]! ^ b[k]!) & m) !== 0) return false;
  }
  return true;
}

/** a[ai..] <= b, comparing w words. */
function lessOrEqual(a: Uint32Array, ai: number, b: Uint32Array, w: number): boolean {
  for (let k = 0; k < w; k++) {
    const x = a[ai + k]!;
    const y = b[k]!;
    if (x !== y) return x < y;
  }
  return true;
}

/**
 * What to do at a prefix, for the IPv6 tree's special places: a record to
 * use as is, SPLIT to make a node even without a boundary inside, or
 * undefined for the ranges to decide.
 */
type Hook = (depth: number, prefix: Uint32Array) => number | typeof SPLIT | undefined;
const SPLIT = Symbol('split');

/** Builds the subtree of one family's ranges under the tree's current position; returns its root record. */
function buildFamily(tree: SearchTree, ranges: TreeRanges, hook?: Hook): number {
  const w = ranges.words;
  const bits = 32 * w;
  const { starts, values } = ranges;
  const n = values.length;
  const prefix = new Uint32Array(w);
  let cur = 0;
  const visit = (depth: number): number => {
    // 1. The range holding the prefix's first address.
    while (cur + 1 < n && lessOrEqual(starts, (cur + 1) * w, prefix, w)) cur++;
    // 2. Whether the prefix needs a node.
    const special = hook?.(depth, prefix);
    if (typeof special === 'number') return special;
    const boundaryInside = cur + 1 < n && samePrefix(starts, (cur + 1) * w, prefix, w, depth);
    if (special !== SPLIT && (!boundaryInside || depth === bits)) {
      const v = values[cur]!;
      return v === NO_DATA ? NO_DATA : dataRecord(v);
    }
    // 3. A node: left half (bit `depth` = 0), then right half.
    const id = tree.node();
    const word = depth >>> 5;
    const bit = 1 << (31 - (depth & 31));
    const l = visit(depth + 1);
    prefix[word] = (prefix[word]! | bit) >>> 0;
    const r = visit(depth + 1);
    prefix[word] = (prefix[word] & ~bit) >>> 0;
    tree.left[id] = l;
    tree.right[id] = r;
    return id;
  };
  return visit(0);
}

/** Whether the prefix (top `depth` bits of p) contains ::/96 (zero) or ::ffff:0:0/96 (mapped). */
function holds(depth: number, p: Uint32Array, mapped: boolean): boolean {
  if (p[0] !== 0 || p[1] !== 0 || p[3] !== 0) return false;
  const want = mapped ? 0xffff : 0;
  return ((p[2]! ^ want) & topMask(depth - 64)) === 0;
}

/**
 * Builds the whole tree: IPv4 under ::/96, IPv4-mapped pointing there, IPv6
 * elsewhere (see the module comment). Returns the tree (root = node 0).
 */
export function buildTree(v4: TreeRanges, v6: TreeRanges): SearchTree {
  const tree = new SearchTree();
  const four = mergeEqual(v4);
  const six = mergeEqual(v6);
  let v4Root: number | undefined;
  const hook: Hook = (depth, p) => {
    if (depth < 96) return holds(depth, p, false) || holds(depth, p, true) ? SPLIT : undefined;
    if (depth > 96) return undefined;
    if (holds(96, p, false)) return (v4Root = buildFamily(tree, four));
    if (holds(96, p, true)) return v4Root!;
    return undefined;
  };
  // The root always splits (its prefix holds ::/96), so it is the first node made: node 0.
  const root = buildFamily(tree, six, hook);
  if (root !== 0) throw new Error(`internal: the tree root is ${root}, not node 0`);
  return tree;
}
