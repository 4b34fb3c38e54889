/**
 * The IPv6 index: ranges keyed by the upper 64 bits. Starts are grouped by
 * their first 32-bit word (`w0`, one entry per distinct word, `groups` = slice
 * of each group), and only the second word is stored per range (`w1`). Two
 * tables are built when the index is made: a hash from a /32 to its group
 * (most lookups), and a 2^16-entry jump table that narrows the binary search
 * for the group before an address whose /32 has none. The ~0.2% of /64
 * blocks that hold boundaries finer than /64 get a leaf with SUB_TABLE_BIT
 * set, pointing to a sub-table keyed by the lower 64 bits.
 *
 * Made from the checked IPv6 columns, which a snapshot may decode on the
 * first IPv6 lookup (lookup.ts's RangeIndex makes this object then).
 * Invariants (checked by decode.ts): the first range starts at ::, starts
 * strictly increase, every leaf id is in range. Nothing here allocates but
 * `bounds` and `coverage`, which are off the hot path.
 *
 * @module
 */
import type { V6Columns } from './decode.js';
import { SUB_TABLE_BIT } from './format.js';

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

/**
 * A hash table from each group's first word (a /32) to the group: pairs
 * [word, group + 1] in 2^k slots (at least 1.5 per group), 0 = empty, linear
 * probing. One or two reads find the group of an address whose /32 has one
 * (91% of the bench's IPv6 addresses), where the jump table and a binary
 * search over `w0` took ~12 dependent reads (110 against 52 ns).
 */
export interface GroupHash {
  readonly slots: Uint32Array;
  /** 32 - log2(slot count): the hash is the top bits of a multiplicative hash. */
  readonly shift: number;
  /** slot count - 1 */
  readonly mask: number;
  /** The odd multiplier of the hash: GOLDEN, unless the words collide under it (see buildGroupHash). */
  readonly mul: number;
}

/** The multiplier of {@link groupSlot}: 2^32 / golden ratio, which spreads sorted keys over the slots. */
export const GOLDEN = 0x9e3779b1;

/** The first slot to probe for word `a0`. */
export function groupSlot(a0: number, shift: number, mul = GOLDEN): number {
  return Math.imul(a0, mul) >>> shift;
}

/** Probes a build may make in all before it tries another multiplier: a few per word on real data. */
function probeBudget(words: number): number {
  return 4 * words + 64;
}

/** Multipliers tried after GOLDEN before the last one is kept whatever its probes. */
const RETRIES = 8;

/**
 * Builds the {@link GroupHash} of the groups' first words (distinct, as the
 * decoder checks). Words chosen to share first slots under GOLDEN (a crafted
 * file: the words x / GOLDEN mod 2^32 all start at slot 0) would make the
 * linear probing quadratic: 40 s of load for 200,000 groups. So a build that
 * probes past its budget starts again with a random odd multiplier, which no
 * file can be made against in advance.
 */
export function buildGroupHash(w0: Uint32Array, random: () => number = Math.random): GroupHash {
  let mul = GOLDEN;
  for (let attempt = 0; ; attempt++) {
    const hash = groupHashWith(w0, mul, attempt < RETRIES ? probeBudget(w0.length) : Number.POSITIVE_INFINITY);
    if (hash !== null) return hash;
    mul = (Math.floor(random() * 2 ** 32) | 1) >>> 0;
  }
}

/** The table of `w0` under multiplier `mul`, or null once it has probed more than `budget` slots. */
function groupHashWith(w0: Uint32Array, mul: number, budget: number): GroupHash | null {
  let bits = 4;
  while (2 ** bits < 1.5 * w0.length) bits++;
  const slots = new Uint32Array(2 << bits);
  const mask = (1 << bits) - 1;
  const shift = 32 - bits;
  let probes = 0;
  for (let g = 0; g < w0.length; g++) {
    let h = groupSlot(w0[g]!, shift, mul);
    while (slots[2 * h + 1] !== 0) {
      h = (h + 1) & mask;
      if (++probes > budget) return null;
    }
    slots[2 * h] = w0[g]!;
    slots[2 * h + 1] = g + 1;
  }
  return { slots, shift, mask, mul };
}

/** The group whose first word is `a0`, or -1 when there is none (no range starts in that /32). */
export function findGroup(hash: GroupHash, a0: number): number {
  const slots = hash.slots;
  let h = groupSlot(a0, hash.shift, hash.mul);
  for (;;) {
    const g = slots[2 * h + 1]!;
    if (g === 0) return -1;
    if (slots[2 * h] === a0) return g - 1;
    h = (h + 1) & hash.mask;
  }
}

/**
 * The lowest id of the run of leaves, ending at leaf `leafCount - 1`, that
 * the 3-byte leaf ids of `columns` all name (`leafCount` when the last leaf
 * is not named). Ids of `leafCount` and above (sub-table references) name no
 * leaf.
 */
export function tailOfReached(columns: readonly Uint8Array[], leafCount: number): number {
  const reached = new Uint8Array(leafCount);
  for (const ids of columns) {
    const n = ids.length / 3;
    for (let i = 0; i < n; i++) {
      const leaf = id24(ids, i);
      if (leaf < leafCount) reached[leaf] = 1;
    }
  }
  let from = leafCount;
  while (from > 0 && reached[from - 1] === 1) from--;
  return from;
}

export class V6Index {
  /** The columns it searches (walk.ts reads them too). */
  readonly columns: V6Columns;
  private readonly w0: Uint32Array;
  private readonly groups: Uint32Array;
  private readonly w1: Uint32Array;
  private readonly leaf6: Uint8Array;
  private readonly sub: Uint32Array;
  private readonly subW: Uint32Array;
  private readonly subLeaf: Uint8Array;
  private readonly jump: Uint32Array;
  private readonly hash: GroupHash;

  constructor(c: V6Columns) {
    this.columns = c;
    this.w0 = c['v6.w0'];
    this.groups = c['v6.groups'];
    this.w1 = c['v6.w1'];
    this.leaf6 = c['v6.leaf'];
    this.sub = c['v6.sub'];
    this.subW = c['v6.subw'];
    this.subLeaf = c['v6.subleaf'];
    this.jump = buildV6Jump(c['v6.w0']);
    this.hash = buildGroupHash(c['v6.w0']);
  }

  /** The last group whose first word is <= a0 (the first group starts at ::, so there is one). */
  private groupAtOrBefore(a0: number): number {
    const w0 = this.w0;
    // Narrow the groups by the top 16 bits, then find the last group with w0 <= a0.
    const t = a0 >>> 16;
    let l = this.jump[t]!;
    let r = this.jump[t + 1]!;
    while (l < r) {
      const m = (l + r) >>> 1;
      if (w0[m]! <= a0) l = m + 1;
      else r = m;
    }
    return l - 1;
  }

  /** Index of the main-table range holding the address whose upper words are (a0, a1). */
  rangeOf(a0: number, a1: number): number {
    // 1. The group of the address's /32; without one, the answer is the last range of the group before.
    const g = findGroup(this.hash, a0);
    if (g < 0) return this.groups[this.groupAtOrBefore(a0) + 1]! - 1;
    // 2. The last range in the group with w1 <= a1 (or the range before the group).
    const w1 = this.w1;
    let l = this.groups[g]!;
    let r = this.groups[g + 1]!;
    while (l < r) {
      const m = (l + r) >>> 1;
      if (w1[m]! <= a1) l = m + 1;
      else r = m;
    }
    return l - 1;
  }

  /** Leaf id of an address given as four words. */
  leaf(a0: number, a1: number, a2: number, a3: number): number {
    const i = this.rangeOf(a0, a1);
    const leaf = id24(this.leaf6, i);
    if (leaf < SUB_TABLE_BIT) return leaf;
    const j = this.subRangeOf(leaf - SUB_TABLE_BIT, a2, a3);
    return id24(this.subLeaf, j);
  }

  /**
   * Where the leaves only IPv6 reaches begin: {@link tailOfReached} of this
   * index's ranges and sub-table ranges. The writer numbers leaves by IPv4
   * space first (order.ts), so those leaves come last. Reads every range's
   * leaf once (~10-20 ms for the world snapshot), off the hot path.
   */
  reachedTailFrom(leafCount: number): number {
    return tailOfReached([this.leaf6, this.subLeaf], leafCount);
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

  /** Bounds [start, end] of the range holding the address (off the hot path). */
  bounds(a: readonly [number, number, number, number]): [bigint, bigint] {
    const i = this.rangeOf(a[0], a[1]);
    const hi = (x: number): bigint => BigInt(this.startHi(x)) << 64n;
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

  /** The upper 64 bits of main range i's start. */
  private startHi(i: number): bigint {
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
   * Adds to `into[leaf]` the /64 blocks each leaf holds (a share of a /64
   * for ranges inside sub-tables). Walks every range once.
   */
  coverage(into: Float64Array): void {
    // Sizes are differences of 64-bit positions, taken word by word so that
    // they stay exact (absolute positions near 2^61 would lose their low bits as doubles).
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
        into[leaf]! += (b0 - a0) * TWO32 + (b1 - a1);
      } else {
        // A /64 with finer boundaries (the writer always starts a new main range right after
        // it, so this range is exactly that block): each sub-range gets its share of the block.
        const k = leaf - SUB_TABLE_BIT;
        const end = this.sub[k + 1]!;
        for (let j = this.sub[k]!; j < end; j++) {
          const c0 = j + 1 < end ? this.subW[2 * j + 2]! : TWO32;
          const c1 = j + 1 < end ? this.subW[2 * j + 3]! : 0;
          const size = (c0 - this.subW[2 * j]!) * TWO32 + (c1 - this.subW[2 * j + 1]!);
          into[id24(this.subLeaf, j)]! += size / (TWO32 * TWO32);
        }
      }
      a0 = b0;
      a1 = b1;
    }
  }
}
