/**
 * The longest-prefix-match index: the hot path. See docs/design.md for why.
 *
 * The builder resolves nesting (longest prefix wins) into a flat list of
 * contiguous ranges covering the whole address space, each with a leaf id.
 * A lookup finds the range holding the address.
 *
 * IPv4: a direct table and small blocks, in v4-index.ts.
 *
 * IPv6: ranges are keyed by the upper 64 bits. Starts are grouped by their
 * first 32-bit word (`w0`, one entry per distinct word, `groups` = slice of
 * each group), and only the second word is stored per range (`w1`). A
 * 2^16-entry jump table built at load narrows the group search. The ~0.2% of
 * /64 blocks that hold boundaries finer than /64 get a leaf with
 * SUB_TABLE_BIT set, pointing to a sub-table keyed by the lower 64 bits.
 *
 * Invariants (checked by decode.ts at load): the first range of each family
 * starts at address 0; starts strictly increase; every leaf id is in range.
 * Nothing here allocates.
 *
 * @module
 */
import { SUB_TABLE_BIT } from './format.js';
import { V4Index } from './v4-index.js';

/** Leaf ids are 24-bit: 3 little-endian bytes per range. */
export interface IndexArrays {
  readonly v4Dir: Uint32Array;
  readonly v4Blk: Uint8Array;
  readonly v6W0: Uint32Array;
  readonly v6Groups: Uint32Array;
  readonly v6W1: Uint32Array;
  readonly v6Leaf: Uint8Array;
  readonly v6Sub: Uint32Array;
  readonly v6SubW: Uint32Array;
  readonly v6SubLeaf: Uint8Array;
}

/** The 24-bit id at index i of a 3-bytes-per-entry column. */
export function id24(b: Uint8Array, i: number): number {
  const j = 3 * i;
  return b[j]! | (b[j + 1]! << 8) | (b[j + 2]! << 16);
}

/** Builds the IPv6 jump table: for each top-16-bit value t, the first group with w0 >>> 16 >= t. */
export function buildV6Jump(w0: Uint32Array): Uint32Array {
  const jump = new Uint32Array(65537);
  let g = 0;
  for (let t = 0; t <= 65536; t++) {
    while (g < w0.length && w0[g]! >>> 16 < t) g++;
    jump[t] = g;
  }
  return jump;
}

export class RangeIndex {
  readonly v4: V4Index;
  private readonly w0: Uint32Array;
  private readonly groups: Uint32Array;
  private readonly w1: Uint32Array;
  private readonly leaf6: Uint8Array;
  private readonly sub: Uint32Array;
  private readonly subW: Uint32Array;
  private readonly subLeaf: Uint8Array;
  private readonly jump6: Uint32Array;

  constructor(a: IndexArrays) {
    this.v4 = new V4Index(a.v4Dir, a.v4Blk);
    this.w0 = a.v6W0;
    this.groups = a.v6Groups;
    this.w1 = a.v6W1;
    this.leaf6 = a.v6Leaf;
    this.sub = a.v6Sub;
    this.subW = a.v6SubW;
    this.subLeaf = a.v6SubLeaf;
    this.jump6 = buildV6Jump(a.v6W0);
  }

  /** Leaf id of an IPv4 address (an unsigned 32-bit number). */
  lookup4(addr: number): number {
    return this.v4.leaf(addr);
  }

  /** Index of the IPv6 main-table range holding the address whose upper words are (w0, w1). */
  rangeOf6(a0: number, a1: number): number {
    const w0 = this.w0;
    // 1. Narrow the groups by the top 16 bits, then find the last group with w0 <= a0.
    const t = a0 >>> 16;
    let l = this.jump6[t]!;
    let r = this.jump6[t + 1]!;
    while (l < r) {
      const m = (l + r) >>> 1;
      if (w0[m]! <= a0) l = m + 1;
      else r = m;
    }
    const g = l - 1;
    // 2. Another /32 than the address's: the answer is that group's last range.
    if (w0[g] !== a0) return this.groups[g + 1]! - 1;
    // 3. Same /32: last range in the group with w1 <= a1 (or the range before the group).
    const w1 = this.w1;
    l = this.groups[g]!;
    r = this.groups[g + 1]!;
    while (l < r) {
      const m = (l + r) >>> 1;
      if (w1[m]! <= a1) l = m + 1;
      else r = m;
    }
    return l - 1;
  }

  /** Leaf id of an IPv6 address given as four words. */
  lookup6(a0: number, a1: number, a2: number, a3: number): number {
    const i = this.rangeOf6(a0, a1);
    const leaf = id24(this.leaf6, i);
    if (leaf < SUB_TABLE_BIT) return leaf;
    const j = this.subRangeOf(leaf - SUB_TABLE_BIT, a2, a3);
    return id24(this.subLeaf, j);
  }

  /** Index in the sub-table arrays of the range holding lower words (a2, a3) in sub-table k. */
  subRangeOf(k: number, a2: number, a3: number): number {
    const sw = this.subW;
    let l = this.sub[k]!;
    let r = this.sub[k + 1]!;
    while (l < r) {
      const m = (l + r) >>> 1;
      const x = sw[2 * m]!;
      if (x < a2 || (x === a2 && sw[2 * m + 1]! <= a3)) l = m + 1;
      else r = m;
    }
    return l - 1;
  }

  /** Bounds [start, end] of the run of IPv4 addresses around `addr` that share its leaf (off the hot path). */
  bounds4(addr: number): [bigint, bigint] {
    const [start, end] = this.v4.bounds(addr);
    return [BigInt(start), BigInt(end)];
  }

  /** Bounds of the IPv6 range holding the address (off the hot path). */
  bounds6(a: readonly [number, number, number, number]): [bigint, bigint] {
    const i = this.rangeOf6(a[0], a[1]);
    const hi = (x: number): bigint => BigInt(this.start6hi(x)) << 64n;
    const mainStart = hi(i);
    const mainEnd = i + 1 < this.w1.length ? hi(i + 1) - 1n : (1n << 128n) - 1n;
    const leaf = id24(this.leaf6, i);
    if (leaf < SUB_TABLE_BIT) return [mainStart, mainEnd];
    const k = leaf - SUB_TABLE_BIT;
    const j = this.subRangeOf(k, a[2], a[3]);
    const block = (BigInt(a[0]) << 96n) | (BigInt(a[1]) << 64n);
    const lo = (x: number): bigint => (BigInt(this.subW[2 * x]!) << 32n) | BigInt(this.subW[2 * x + 1]!);
    const end = j + 1 < this.sub[k + 1]! ? block + lo(j + 1) - 1n : block + (1n << 64n) - 1n;
    return [block + lo(j), end];
  }

  private start6hi(i: number): bigint {
    let l = 0;
    let r = this.w0.length;
    while (l < r) {
      const m = (l + r) >>> 1;
      if (this.groups[m]! <= i) l = m + 1;
      else r = m;
    }
    return (BigInt(this.w0[l - 1]!) << 32n) | BigInt(this.w1[i]!);
  }

  /**
   * Space held by each leaf: IPv4 addresses, and IPv6 /64 blocks (a share of
   * a /64 for ranges inside sub-tables). Walks every range once.
   */
  coverage(leaves: number): { v4: Float64Array; v6: Float64Array } {
    const v4 = new Float64Array(leaves);
    this.v4.coverage(v4);
    // IPv6: sizes are differences of 64-bit positions, taken word by word so that
    // they stay exact (absolute positions near 2^61 would lose their low bits as doubles).
    const v6 = new Float64Array(leaves);
    const n6 = this.w1.length;
    const TWO32 = 4294967296;
    let g = 0;
    const w0At = (i: number): number => {
      while (this.groups[g + 1]! <= i) g++;
      return this.w0[g]!;
    };
    let a0 = w0At(0);
    let a1 = this.w1[0]!;
    for (let i = 0; i < n6; i++) {
      let b0 = TWO32;
      let b1 = 0;
      if (i + 1 < n6) {
        b0 = w0At(i + 1);
        b1 = this.w1[i + 1]!;
      }
      const leaf = id24(this.leaf6, i);
      if (leaf < SUB_TABLE_BIT) {
        v6[leaf]! += (b0 - a0) * TWO32 + (b1 - a1);
      } else {
        // A /64 with finer boundaries (the writer always starts a new main range right after
        // it, so this range is exactly that block): each sub-range gets its share of the block.
        const k = leaf - SUB_TABLE_BIT;
        const end = this.sub[k + 1]!;
        for (let j = this.sub[k]!; j < end; j++) {
          const c0 = j + 1 < end ? this.subW[2 * j + 2]! : TWO32;
          const c1 = j + 1 < end ? this.subW[2 * j + 3]! : 0;
          const size = (c0 - this.subW[2 * j]!) * TWO32 + (c1 - this.subW[2 * j + 1]!);
          v6[id24(this.subLeaf, j)]! += size / (TWO32 * TWO32);
        }
      }
      a0 = b0;
      a1 = b1;
    }
    return { v4, v6 };
  }

  get ranges6(): number {
    return this.w1.length;
  }
}
