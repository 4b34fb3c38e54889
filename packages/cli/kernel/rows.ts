// AssemblyScript (compiled to WebAssembly by packages/cli/scripts/build-kernel.mjs).
//
// The per-line work of `ipintel batch` for dotted-decimal IPv4 lines: cutting
// and parsing lines, the index lookups, the leaves' record ids, finding each
// row's rendered runs, and copying the rows together. The host (kernel.ts in
// src/batch) owns the memory and its layout: every address below is one it
// passes in. Nothing here allocates, grows the memory or calls the host.
//
// Why WebAssembly: at a million random lines these loops are bound by memory
// latency, and the fewer instructions each line takes, the more lines' cache
// misses the CPU overlaps; a row's copies in JavaScript cost 4-6x those of
// memory.copy (docs/design.md, "Nineteenth round").

// ---- The IPv4 index (snapshot format 4: core's v4-index.ts) and the leaves' ids ----

let dir: usize = 0;
let dirShift: u32 = 12;
let dirMask: u32 = 0xfff;
let blk: usize = 0;
let leafIds: usize = 0;
let pairNet: usize = 0;
let pairSig: usize = 0;
let netFlags: usize = 0;

/** A map entry at or above this is the offset of a slice's block (format.ts V4_SLICE_BLOCK). */
const SLICE_BLOCK: u32 = 0x800000;
/** net.flags: the network's routing is inferred (format.ts NET_ROUTING_INFERRED). */
const ROUTING_INFERRED: u8 = 4;

/**
 * Where the index's columns are. `blk` must be followed by 4 readable bytes
 * (a 24-bit id is read as one 32-bit load).
 */
export function setIndex(d: usize, bits: u32, b: usize, ids: usize, pn: usize, ps: usize, nf: usize): void {
  dir = d;
  dirShift = 32 - bits;
  dirMask = (<u32>1 << dirShift) - 1;
  blk = b;
  leafIds = ids;
  pairNet = pn;
  pairSig = ps;
  netFlags = nf;
}

// @ts-ignore: decorator
@inline function u24(p: usize): u32 {
  return load<u32>(p) & 0xffffff;
}

/** Leaf of offset `low` in the slice block at `s`: k, k starts (u8), k + 1 leaves (u24). */
function sliceLeaf(s: usize, low: u32): u32 {
  const k = <u32>load<u8>(s);
  let j: u32 = 0;
  if (k <= 16) {
    while (j < k && <u32>load<u8>(s + 1 + j) <= low) j++;
  } else {
    let r = k;
    while (j < r) {
      const m = (j + r) >>> 1;
      if (<u32>load<u8>(s + 1 + m) <= low) j = m + 1;
      else r = m;
    }
  }
  return u24(s + 1 + k + 3 * j);
}

/** The leaf of an IPv4 address (core's V4Index#leaf). */
export function leaf(addr: u32): u32 {
  const e = load<i32>(dir + ((<usize>(addr >>> dirShift)) << 2));
  if (e >= 0) return <u32>e;
  const o = blk + <usize>(e & 0x7fffffff);
  const v = u24(o + 3 * ((addr & dirMask) >>> 8));
  if (v < SLICE_BLOCK) return v;
  return sliceLeaf(o + v - SLICE_BLOCK, addr & 0xff);
}

// ---- Lines ----

/** What `scan` ended on (status[0]): the end of the input, a full group, or a line for the host's general path. */
const ENDED: u32 = 0;
const FULL: u32 = 1;
const SLOW: u32 = 2;

// @ts-ignore: decorator
@inline function isPadding(c: u32): bool {
  return c == 32 || c == 9 || c == 13;
}

/**
 * Strict dotted-decimal IPv4 of bytes [s, e) (core's parseIPv4Bytes: four
 * parts of 1-3 digits, each <= 255, no leading zero): the address, or -1 for
 * anything else (the host's general path gives the reason).
 */
function parseIPv4(p: usize, s: u32, e: u32): i64 {
  let addr: u32 = 0;
  let part: u32 = 0;
  let digits: u32 = 0;
  let parts: u32 = 0;
  for (let i = s; i < e; i++) {
    const c = <u32>load<u8>(p + i);
    if (c - 48 <= 9) {
      if (digits == 1 && part == 0) return -1;
      part = part * 10 + (c - 48);
      if (part > 255) return -1;
      digits++;
    } else if (c == 46) {
      if (digits == 0 || parts == 3) return -1;
      addr = (addr << 8) | part;
      parts++;
      part = 0;
      digits = 0;
    } else return -1;
  }
  if (digits == 0 || parts != 3) return -1;
  return <i64>((addr << 8) | part);
}

/**
 * Cuts the lines of input[pos, end) (a line ends at LF; space, tab and CR are
 * trimmed at both ends; empty lines and lines starting with `#` are skipped)
 * and queues each dotted-decimal IPv4 line as (address, start, end) at
 * `queue` + 12 × (`queued` + i), until the queue holds `cap` lines, the input
 * ends, or a line is not such an address. Returns the lines queued; status
 * gets [how it ended, position after the last line read, physical lines read,
 * the other line's start and end].
 */
export function scan(input: usize, pos: u32, end: u32, queue: usize, queued: u32, cap: u32, status: usize): u32 {
  let n = queued;
  let lines: u32 = 0;
  let how = ENDED;
  while (pos < end) {
    let e = pos;
    while (e < end && load<u8>(input + e) != 10) e++;
    let s = pos;
    pos = e + 1;
    lines++;
    while (s < e && isPadding(load<u8>(input + s))) s++;
    while (e > s && isPadding(load<u8>(input + e - 1))) e--;
    if (s == e || load<u8>(input + s) == 35) continue;
    const a = parseIPv4(input, s, e);
    if (a < 0) {
      how = SLOW;
      store<u32>(status, s, 12);
      store<u32>(status, e, 16);
      break;
    }
    const q = queue + 12 * <usize>n;
    store<u32>(q, <u32>a);
    store<u32>(q, s, 4);
    store<u32>(q, e, 8);
    n++;
    if (n == cap) {
      how = FULL;
      break;
    }
  }
  store<u32>(status, how);
  store<u32>(status, pos, 4);
  store<u32>(status, lines, 8);
  return n - queued;
}

// ---- Record keys and runs ----

/** Record keys per queued line: geo row, network row, signal set, evidence key, pair (the host's RECORD_OF slots). */
const KEYS: usize = 5;

/**
 * The record keys of the n queued lines, into `keys` (KEYS u32 a line): the
 * leaf's geo row and pair, and with `everyKey` its network row, signal set
 * and evidence key too (2 × signal set + 1 when the network's routing is
 * inferred). Leaves go to `leaves`. In stages over all lines, so that the
 * reads of different lines overlap.
 */
export function keys(queue: usize, n: u32, leaves: usize, out: usize, everyKey: bool): void {
  for (let j: usize = 0; j < n; j++) store<u32>(leaves + 4 * j, leaf(load<u32>(queue + 12 * j)));
  for (let j: usize = 0; j < n; j++) {
    const l = <usize>load<u32>(leaves + 4 * j);
    const ids = leafIds + 6 * l;
    const lo = load<u16>(ids);
    const pr = load<u16>(ids, 2);
    const hi = <u32>load<u16>(ids, 4);
    const k = out + 4 * KEYS * j;
    store<u32>(k, <u32>lo | ((hi & 0xff) << 16));
    store<u32>(k, <u32>pr | ((hi >>> 8) << 16), 16);
  }
  if (!everyKey) return;
  for (let j: usize = 0; j < n; j++) {
    const k = out + 4 * KEYS * j;
    const pair = <usize>load<u32>(k, 16);
    const net = load<u32>(pairNet + 4 * pair);
    const sig = load<u32>(pairSig + 4 * pair);
    store<u32>(k, net, 4);
    store<u32>(k, sig, 8);
    store<u32>(k, 2 * sig + ((load<u8>(netFlags + <usize>net) & ROUTING_INFERRED) != 0 ? 1 : 0), 12);
  }
}

/**
 * Each queued line's record id for each of `nr` runs (run r: its key slot
 * at runs + 8r, -1 for none, and its places at runs + 8r + 4: 2 i32 per id,
 * [start + 1, length] in the store, 0 while not rendered) into ids[j × nr +
 * r]; the (j × nr + r) of those not rendered yet into `missing`. Returns how
 * many are missing.
 */
export function places(n: u32, keysAt: usize, runs: usize, nr: u32, ids: usize, missing: usize): u32 {
  let m: u32 = 0;
  for (let j: u32 = 0; j < n; j++) {
    for (let r: u32 = 0; r < nr; r++) {
      const slot = load<i32>(runs + 8 * <usize>r);
      const id = slot < 0 ? 0 : load<u32>(keysAt + 4 * (KEYS * <usize>j + <usize>slot));
      const x = j * nr + r;
      store<u32>(ids + 4 * <usize>x, id);
      if (load<i32>(<usize>load<u32>(runs + 8 * <usize>r, 4) + 8 * <usize>id) == 0) {
        store<u32>(missing + 4 * <usize>m, x);
        m++;
      }
    }
  }
  return m;
}

/**
 * Writes the rows of queued lines `from`, `from` + 1, ... at `sink`, as many
 * of the `n` as fit before `sinkEnd`; returns how many it wrote and puts
 * where they end in status[1]. A row is: with `sep` (2 bytes there, JSON's
 * ",\n"; 0 for none) before it unless it is the first row of the output
 * (`firstRow` and j = `from`), each of the `np` pieces (pieces + 4i: -1 the
 * line's address bytes from `input`, else the number of a run, whose bytes
 * for the line's record are in the store at `storeAt`).
 */
export function rows(
  input: usize, queue: usize, from: u32, n: u32, pieces: usize, np: u32, runs: usize, nr: u32, ids: usize,
  storeAt: usize, sink: usize, sinkEnd: usize, sep: usize, firstRow: bool, status: usize,
): u32 {
  let p = sink;
  let j = from;
  for (; j < n; j++) {
    const q = queue + 12 * <usize>j;
    const s = load<u32>(q, 4);
    const addrLen = <usize>(load<u32>(q, 8) - s);
    // The row's length first: a row is written whole or not at all.
    let len: usize = sep != 0 && !(firstRow && j == from) ? 2 : 0;
    for (let i: u32 = 0; i < np; i++) {
      const r = load<i32>(pieces + 4 * <usize>i);
      if (r < 0) len += addrLen;
      else {
        const id = <usize>load<u32>(ids + 4 * <usize>(j * nr + <u32>r));
        len += <usize>load<i32>(<usize>load<u32>(runs + 8 * <usize>r, 4) + 8 * id, 4);
      }
    }
    if (p + len > sinkEnd) break;
    if (sep != 0 && !(firstRow && j == from)) {
      store<u16>(p, load<u16>(sep));
      p += 2;
    }
    for (let i: u32 = 0; i < np; i++) {
      const r = load<i32>(pieces + 4 * <usize>i);
      if (r < 0) {
        memory.copy(p, input + <usize>s, addrLen);
        p += addrLen;
      } else {
        const id = <usize>load<u32>(ids + 4 * <usize>(j * nr + <u32>r));
        const place = <usize>load<u32>(runs + 8 * <usize>r, 4) + 8 * id;
        const runLen = <usize>load<i32>(place, 4);
        memory.copy(p, storeAt + <usize>(load<i32>(place) - 1), runLen);
        p += runLen;
      }
    }
  }
  store<u32>(status, <u32>p, 4);
  return j - from;
}
