/**
 * The longest-prefix-match index: the hot path. See docs/design.md for why.
 *
 * The builder resolves nesting (longest prefix wins) into a flat list of
 * contiguous ranges covering the whole address space, each with a leaf id.
 * A lookup finds the range holding the address.
 *
 * IPv4: a direct table, /24 maps and small blocks, in v4-index.ts. IPv6: ranges keyed
 * by their upper 64 bits, in v6-index.ts, made on the first IPv6 lookup from
 * columns the snapshot may decode only then (decode.ts's `v6`): an IPv4-only
 * workload never pays for them. The IPv6 index is swapped in once; after
 * that a lookup costs one field read more than a direct call.
 *
 * Invariants (checked by decode.ts): the first range of each family starts
 * at address 0; starts strictly increase; every leaf id is in range.
 * Nothing here allocates on a lookup.
 *
 * @module
 */
import type { V6Columns } from './decode.js';
import { V4Index } from './v4-index.js';
import { V6Index } from './v6-index.js';

/** The IPv4 index columns. */
export interface V4Arrays {
  readonly v4Dir: Uint32Array;
  readonly v4Blk: Uint8Array;
}

export class RangeIndex {
  readonly v4: V4Index;
  readonly arrays4: V4Arrays;
  /** Made on first use from `columns6()` (which decodes and checks them, or throws `snapshot_corrupt`). */
  private v6Made: V6Index | undefined;
  private readonly columns6: () => V6Columns;

  constructor(a4: V4Arrays, columns6: () => V6Columns) {
    this.arrays4 = a4;
    this.v4 = new V4Index(a4.v4Dir, a4.v4Blk);
    this.columns6 = columns6;
  }

  /** The IPv6 index, made on the first call. Throws `snapshot_corrupt` when the IPv6 columns break an invariant. */
  get v6(): V6Index {
    return this.v6Made ?? this.makeV6();
  }

  private makeV6(): V6Index {
    this.v6Made = new V6Index(this.columns6());
    return this.v6Made;
  }

  /** Leaf id of an IPv6 address given as four words. */
  lookup6(a0: number, a1: number, a2: number, a3: number): number {
    return (this.v6Made ?? this.makeV6()).leaf(a0, a1, a2, a3);
  }

  /** Bounds [start, end] of the run of IPv4 addresses around `addr` that share its leaf (off the hot path). */
  bounds4(addr: number): [bigint, bigint] {
    const [start, end] = this.v4.bounds(addr);
    return [BigInt(start), BigInt(end)];
  }

  /** Bounds of the IPv6 range holding the address (off the hot path). */
  bounds6(a: readonly [number, number, number, number]): [bigint, bigint] {
    return this.v6.bounds(a);
  }

  /**
   * Space held by each leaf: IPv4 addresses, and IPv6 /64 blocks (a share of
   * a /64 for ranges inside sub-tables). Walks every range once.
   */
  coverage(leaves: number): { v4: Float64Array; v6: Float64Array } {
    const v4 = new Float64Array(leaves);
    this.v4.coverage(v4);
    const v6 = new Float64Array(leaves);
    this.v6.coverage(v6);
    return { v4, v6 };
  }
}
