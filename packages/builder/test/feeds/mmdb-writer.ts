/**
 * A tiny MaxMind DB writer for tests (mmdb-lib only reads). Builds the
 * binary search tree from CIDR entries (less specific first, more specific
 * overriding), numbers nodes breadth-first, and encodes records with the
 * MMDB data-section encoding, sharing repeated strings through pointers.
 *
 * Supports record sizes 24/28/32, IPv4 and IPv6 trees, and an IPv6 tree
 * that holds IPv4 at `::/96` with alias edges (`::ffff:0:0/96`,
 * `2002::/16`) pointing back at the IPv4 subtree, as MaxMind's writer does.
 *
 * @module
 */
import { addressToBigInt, parseAddress } from '@ipintel/core/writer';

/** A value in the data section. `{ $float }` is a 32-bit float, `{ $uint16 }` a uint16. */
export type MmdbValue =
  | string
  | number
  | boolean
  | { readonly $float: number }
  | { readonly $uint16: number }
  | readonly MmdbValue[]
  | { readonly [key: string]: MmdbValue };

export interface MmdbEntry {
  /** `a.b.c.d/n` or `x::/n`. In an IPv6 tree an IPv4 CIDR goes under `::/96`. */
  readonly cidr: string;
  readonly data: { readonly [key: string]: MmdbValue };
}

export interface MmdbWriteOptions {
  readonly ipVersion: 4 | 6;
  readonly recordSize?: 24 | 28 | 32;
  /** IPv6 tree only: add alias edges into the IPv4 subtree. */
  readonly ipv4Aliases?: boolean;
  readonly databaseType?: string;
  readonly buildEpoch?: number;
}

type Leaf = { readonly kind: 'empty' } | { readonly kind: 'data'; readonly record: number } | { readonly kind: 'alias' };
interface Node {
  l: Node | Leaf;
  r: Node | Leaf;
}
const EMPTY: Leaf = { kind: 'empty' };
const isNode = (x: Node | Leaf): x is Node => 'l' in x;

// ------------------------------------------------------------ data encoding

class DataWriter {
  readonly bytes: number[] = [];
  private readonly strings = new Map<string, number>();

  private ctrl(type: number, size: number): void {
    const ext = type > 7;
    const t = ext ? 0 : type;
    const head = (n: number): void => {
      this.bytes.push((t << 5) | n);
      if (ext) this.bytes.push(type - 7);
    };
    if (size < 29) head(size);
    else if (size < 29 + 256) {
      head(29);
      this.bytes.push(size - 29);
    } else if (size < 285 + 65536) {
      head(30);
      this.bytes.push((size - 285) >> 8, (size - 285) & 0xff);
    } else {
      head(31);
      const s = size - 65821;
      this.bytes.push((s >> 16) & 0xff, (s >> 8) & 0xff, s & 0xff);
    }
  }

  private pointer(to: number): void {
    if (to < 2048) this.bytes.push(0x20 | (to >> 8), to & 0xff);
    else if (to < 2048 + 524288) {
      const v = to - 2048;
      this.bytes.push(0x28 | (v >> 16), (v >> 8) & 0xff, v & 0xff);
    } else throw new Error('test writer: pointer too far');
  }

  write(v: MmdbValue, shareStrings = true): number {
    const at = this.bytes.length;
    if (typeof v === 'string') {
      const prev = this.strings.get(v);
      if (shareStrings && prev !== undefined) {
        this.pointer(prev);
        return at;
      }
      const b = Buffer.from(v, 'utf8');
      this.ctrl(2, b.length);
      this.bytes.push(...b);
      if (shareStrings && b.length > 2) this.strings.set(v, at);
    } else if (typeof v === 'number') {
      if (Number.isInteger(v) && v >= 0 && v < 2 ** 32) {
        const out: number[] = [];
        for (let x = v; x > 0; x = Math.floor(x / 256)) out.unshift(x % 256);
        this.ctrl(6, out.length);
        this.bytes.push(...out);
      } else {
        const b = Buffer.alloc(8);
        b.writeDoubleBE(v);
        this.ctrl(3, 8);
        this.bytes.push(...b);
      }
    } else if (typeof v === 'boolean') {
      this.ctrl(14, v ? 1 : 0);
    } else if (Array.isArray(v)) {
      this.ctrl(11, v.length);
      for (const x of v as readonly MmdbValue[]) this.write(x, shareStrings);
    } else if ('$float' in v) {
      const b = Buffer.alloc(4);
      b.writeFloatBE(v.$float as number);
      this.ctrl(15, 4);
      this.bytes.push(...b);
    } else if ('$uint16' in v) {
      const n = v.$uint16 as number;
      this.ctrl(5, n > 255 ? 2 : n > 0 ? 1 : 0);
      if (n > 255) this.bytes.push(n >> 8, n & 0xff);
      else if (n > 0) this.bytes.push(n);
    } else {
      const entries = Object.entries(v as { [k: string]: MmdbValue });
      this.ctrl(7, entries.length);
      for (const [k, x] of entries) {
        this.write(k, shareStrings);
        this.write(x, shareStrings);
      }
    }
    return at;
  }
}

// ----------------------------------------------------------------- the tree

function prefixBits(cidr: string, ipVersion: 4 | 6): { bits: number[] } {
  const [addrText, lenText] = cidr.split('/') as [string, string | undefined];
  const a = parseAddress(addrText);
  // Core's parser unmaps ::ffff:a.b.c.d to IPv4; the tree wants the IPv6 value.
  const mapped = a.version === 4 && addrText.includes(':');
  const version = mapped ? 6 : a.version;
  const value = mapped ? (0xffffn << 32n) | addressToBigInt(a) : addressToBigInt(a);
  const width = version === 4 ? 32 : 128;
  const length = lenText === undefined ? width : Number(lenText);
  const bits: number[] = [];
  if (ipVersion === 6 && version === 4) for (let i = 0; i < 96; i++) bits.push(0);
  else if (ipVersion === 4 && version === 6) throw new Error(`test writer: IPv6 ${cidr} in an IPv4 tree`);
  for (let i = 0; i < length; i++) bits.push(Number((value >> BigInt(width - 1 - i)) & 1n));
  return { bits };
}

function insert(root: Node, bits: readonly number[], leaf: Leaf): void {
  let node = root;
  for (let i = 0; i < bits.length - 1; i++) {
    const side = bits[i] === 1 ? 'r' : 'l';
    const child = node[side];
    if (isNode(child)) node = child;
    else {
      // Split a leaf: both halves keep the less specific value.
      const n: Node = { l: child, r: child };
      node[side] = n;
      node = n;
    }
  }
  node[bits[bits.length - 1] === 1 ? 'r' : 'l'] = leaf;
}

/**
 * Writes an MMDB file. Entries are applied least specific first, so a more
 * specific CIDR overrides part of a less specific one.
 *
 * @example
 * const buf = writeMmdb([{ cidr: '1.2.0.0/16', data: { city: 'X' } }], { ipVersion: 4 });
 * new Reader(buf).get('1.2.3.4'); // => { city: 'X' }
 */
export function writeMmdb(entries: readonly MmdbEntry[], options: MmdbWriteOptions): Buffer {
  const { ipVersion } = options;
  const recordSize = options.recordSize ?? 24;
  const data = new DataWriter();
  const recordAt = new Map<string, number>();
  const root: Node = { l: EMPTY, r: EMPTY };
  const sorted = entries
    .map((e) => ({ ...e, ...prefixBits(e.cidr, ipVersion) }))
    .sort((a, b) => a.bits.length - b.bits.length);
  for (const e of sorted) {
    if (e.bits.length === 0) throw new Error('test writer: /0 not supported');
    const key = JSON.stringify(e.data);
    let at = recordAt.get(key);
    if (at === undefined) {
      at = data.write(e.data);
      recordAt.set(key, at);
    }
    insert(root, e.bits, { kind: 'data', record: at });
  }
  if (options.ipv4Aliases) {
    if (ipVersion !== 6) throw new Error('test writer: aliases need an IPv6 tree');
    insert(root, prefixBits('::ffff:0:0/96', 6).bits, { kind: 'alias' });
    insert(root, prefixBits('2002::/16', 6).bits, { kind: 'alias' });
  }

  // Number the nodes breadth-first; find the IPv4 subtree (96 left turns).
  const nodes: Node[] = [root];
  const index = new Map<Node, number>([[root, 0]]);
  for (let i = 0; i < nodes.length; i++) {
    for (const c of [nodes[i]!.l, nodes[i]!.r]) {
      if (isNode(c) && !index.has(c)) {
        index.set(c, nodes.length);
        nodes.push(c);
      }
    }
  }
  let v4: Node | Leaf = root;
  for (let d = 0; d < 96 && ipVersion === 6 && isNode(v4); d++) v4 = v4.l;
  const nodeCount = nodes.length;
  const recordValue = (x: Node | Leaf): number => {
    if (isNode(x)) return index.get(x)!;
    if (x.kind === 'empty') return nodeCount;
    if (x.kind === 'data') return nodeCount + 16 + x.record;
    if (!isNode(v4)) throw new Error('test writer: aliases need IPv4 data under ::/96');
    return index.get(v4)!;
  };

  const nodeBytes = recordSize / 4;
  const tree = Buffer.alloc(nodeCount * nodeBytes);
  nodes.forEach((n, i) => {
    const o = i * nodeBytes;
    const l = recordValue(n.l);
    const r = recordValue(n.r);
    if (recordSize === 24) {
      tree.writeUIntBE(l, o, 3);
      tree.writeUIntBE(r, o + 3, 3);
    } else if (recordSize === 28) {
      tree.writeUIntBE(l & 0xffffff, o, 3);
      tree[o + 3] = (((l >>> 24) & 0x0f) << 4) | ((r >>> 24) & 0x0f);
      tree.writeUIntBE(r & 0xffffff, o + 4, 3);
    } else {
      tree.writeUInt32BE(l, o);
      tree.writeUInt32BE(r, o + 4);
    }
  });

  const meta = new DataWriter();
  meta.write(
    {
      node_count: nodeCount,
      record_size: { $uint16: recordSize },
      ip_version: { $uint16: ipVersion },
      database_type: options.databaseType ?? 'ipintel-test',
      languages: ['en'],
      binary_format_major_version: { $uint16: 2 },
      binary_format_minor_version: { $uint16: 0 },
      build_epoch: options.buildEpoch ?? 1_780_000_000,
      description: { en: 'ipintel test database' },
    },
    false,
  );
  return Buffer.concat([
    tree,
    Buffer.alloc(16),
    Buffer.from(data.bytes),
    Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'),
    Buffer.from(meta.bytes),
  ]);
}
