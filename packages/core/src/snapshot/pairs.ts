/**
 * What a result needs of a leaf's network/signal pair, side by side.
 *
 * A leaf points at a pair (a network row and a signal set). A result needs
 * the pair's network row, its signal set, and the evidence object, whose
 * labels depend only on the signal set and on whether the network's routing
 * is inferred. Read from the snapshot's columns that is three reads far
 * apart (`pair.net`, `pair.sig`, then `net.flags` of the network row); the
 * pair rows made here at load put the network row and the evidence key in
 * one 8-byte row, so a check reads one line (docs/design.md, "Tenth round").
 *
 * @module
 */
import { NET_ROUTING_INFERRED } from './format.js';

/**
 * The key of an evidence object: 2 x signal set + 1 when the network's
 * routing is inferred (the only inputs of its labels). The signal set is
 * `key >>> 1`.
 */
export function evidenceKey(sig: number, inferred: boolean): number {
  return 2 * sig + (inferred ? 1 : 0);
}

/**
 * Per pair p: rows[2p] its network row, rows[2p + 1] its evidence key.
 * Made once per load: 226,090 pairs in the world snapshot, ~6 ms (the loop
 * runs once, mostly before the optimiser sees it, so its body stays plain).
 */
export function pairRowsOf(net: Uint32Array, sig: Uint32Array, netFlags: Uint8Array): Uint32Array {
  const rows = new Uint32Array(2 * net.length);
  for (let p = 0, k = 0; p < net.length; p++, k += 2) {
    const n = net[p]!;
    rows[k] = n;
    rows[k + 1] = evidenceKey(sig[p]!, (netFlags[n]! & NET_ROUTING_INFERRED) !== 0);
  }
  return rows;
}
