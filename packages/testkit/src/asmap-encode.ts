/**
 * A small asmap bytecode writer, for tests and the fixture: the map as a
 * binary trie, each inner node a JUMP over its 0-branch, each mapped leaf a
 * RETURN. A RETURN cannot say "unmapped" (AS numbers start at 1): an inner
 * node with one unmapped side is a one-bit MATCH of the other side, whose
 * failure falls to the default, which is 0 as long as no DEFAULT was
 * emitted (none is). Bitcoin Core's own encoder also emits DEFAULT and
 * longer MATCHes to make the file small; this one need not be small.
 *
 * Input prefixes are 128-bit (IPv4 as ::ffff:a.b.c.d/96+n) and may nest:
 * the longest match wins, as in the decoded text form.
 */

const TYPE_BITS = [0, 0, 1];
const ASN_BITS = [15, 16, 17, 18, 19, 20, 21, 22, 23, 24];
const MATCH_BITS = [1, 2, 3, 4, 5, 6, 7, 8];
const JUMP_BITS = [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30];

export interface AsmapEntry {
  /** Top-aligned 128-bit start. */
  readonly start: bigint;
  readonly length: number;
  readonly asn: number;
}

/** Bits of a number in the asmap variable-length code. */
function numberBits(value: number, base: number, sizes: readonly number[]): number[] {
  let v = value - base;
  const bits: number[] = [];
  for (let i = 0; i < sizes.length; i++) {
    const size = 2 ** sizes[i]!;
    const last = i + 1 === sizes.length;
    if (v >= size && !last) {
      bits.push(1);
      v -= size;
      continue;
    }
    if (v >= size) throw new RangeError(`${value} does not fit the code`);
    if (!last) bits.push(0);
    for (let k = sizes[i]! - 1; k >= 0; k--) bits.push(Math.floor(v / 2 ** k) % 2);
    return bits;
  }
  throw new RangeError('no size class');
}

interface Node {
  asn: number;
  zero?: Node;
  one?: Node;
}

const isLeaf = (node: Node): boolean => node.zero === undefined && node.one === undefined;
/** Whether nothing under the node is mapped. */
const unmapped = (node: Node): boolean => (isLeaf(node) ? node.asn === 0 : unmapped(node.zero!) && unmapped(node.one!));

/** The program's bits for a trie node (not wholly unmapped). */
function nodeBits(node: Node): number[] {
  if (isLeaf(node)) return [...numberBits(0, 0, TYPE_BITS), ...numberBits(node.asn, 1, ASN_BITS)];
  const zero = node.zero!;
  const one = node.one!;
  // MATCH patterns carry a leading 1 that marks their length: 0b11 = "bit 1", 0b10 = "bit 0".
  if (unmapped(zero)) return [...numberBits(2, 0, TYPE_BITS), ...numberBits(0b11, 2, MATCH_BITS), ...nodeBits(one)];
  if (unmapped(one)) return [...numberBits(2, 0, TYPE_BITS), ...numberBits(0b10, 2, MATCH_BITS), ...nodeBits(zero)];
  const zeroBits = nodeBits(zero);
  return [...numberBits(1, 0, TYPE_BITS), ...numberBits(zeroBits.length, 17, JUMP_BITS), ...zeroBits, ...nodeBits(one)];
}

/**
 * Encodes a map (ASN 0 = unmapped) as asmap bytecode, bits least
 * significant first within a byte.
 *
 * @throws RangeError when nothing is mapped (a program always ends in a RETURN somewhere).
 */
export function encodeAsmap(entries: readonly AsmapEntry[]): Uint8Array {
  const root: Node = { asn: 0 };
  // Shorter prefixes first, so a nested one splits its parent's subtree.
  for (const e of [...entries].sort((a, b) => a.length - b.length)) {
    let node = root;
    for (let d = 0; d < e.length; d++) {
      const bit = (e.start >> BigInt(127 - d)) & 1n;
      const key = bit === 1n ? 'one' : 'zero';
      node[key] ??= { asn: node.asn };
      if (node.zero === undefined) node.zero = { asn: node.asn };
      if (node.one === undefined) node.one = { asn: node.asn };
      node = node[key];
    }
    setAll(node, e.asn);
  }
  if (unmapped(root)) throw new RangeError('an asmap must map at least one prefix');
  const bits = nodeBits(root);
  const out = new Uint8Array(Math.ceil(bits.length / 8));
  bits.forEach((b, i) => {
    if (b === 1) out[i >>> 3]! |= 1 << (i & 7);
  });
  return out;
}

/** A prefix that arrives after shorter ones owns its whole subtree (later, longer prefixes split it again). */
function setAll(node: Node, asn: number): void {
  node.asn = asn;
  delete node.zero;
  delete node.one;
}

/** `1.2.3.0/24` or `2001:db8::/32` as a 128-bit asmap entry. */
export function asmapEntry(cidr: string, asn: number): AsmapEntry {
  const [addr, len] = cidr.split('/') as [string, string];
  if (!addr.includes(':')) {
    const v4 = addr.split('.').reduce((x, o) => (x << 8n) | BigInt(o), 0n);
    return { start: (0xffffn << 32n) | v4, length: 96 + Number(len), asn };
  }
  const [head, tail] = addr.split('::') as [string, string | undefined];
  const words = (s: string | undefined): bigint[] => (s ? s.split(':').map((w) => BigInt(`0x${w}`)) : []);
  const a = words(head);
  const b = words(tail);
  const all = [...a, ...Array<bigint>(8 - a.length - b.length).fill(0n), ...b];
  return { start: all.reduce((x, w) => (x << 16n) | w, 0n), length: Number(len), asn };
}
