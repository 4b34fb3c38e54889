// AssemblyScript (compiled to WebAssembly by packages/cli/scripts/build-kernel.mjs).
//
// The memory is shared between a batch's threads (one instance of this
// module each): the snapshot's columns, the runs' places and the store of
// rendered runs are read by all; places and table cells are published by
// the thread that renders them, so they are read here with atomic loads.
// Each thread has regions of its own (queue, keys, input, output).
//
// The per-line work of `ipintel batch` for dotted-decimal IPv4 lines: cutting
// and parsing lines, the index lookups, the leaves' record ids, finding each
// row's rendered runs, and copying the rows together. The host (kernel.ts and space.ts in
// src/batch) owns the memory and its layout: every address below is one it
// passes in. Nothing here allocates, grows the memory or calls the host.
//
// Why WebAssembly: at a million random lines these loops are bound by memory
// latency, and the fewer instructions each line takes, the more lines' cache
// misses the CPU overlaps; a row's copies in JavaScript cost 4-6x those of
// memory.copy (docs/design.md, "Nineteenth round").
//
// Why one file of ~860 lines: it is one WebAssembly module, compiled from
// this one entry (scripts/build-kernel.mjs, whose --check a test runs), and
// its stages (scan, keys, places, fill and render, rows) share the module's
// globals that setIndex and setRecords set (the addresses of the index, the
// record columns, the tables) and its @inline helpers; the sections below
// are its parts, in the order a group goes through them.

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
 * The runs table: RUN bytes a run, [slot (i32: its KEYS slot, -1 for none),
 * its places (2 i32 per record: [start + 1 from the store's base, length],
 * 0 while not rendered), kind, a, b]: kind CELLS has a program at a of b
 * ops (rendered by render()), JOINED the numbers of its b runs at a (u32
 * each: its bytes are theirs, back to back), TEXT is rendered by the host.
 */
const RUN: usize = 32;
const TEXT: u32 = 0;
const CELLS: u32 = 1;
const JOINED: u32 = 2;

// @ts-ignore: decorator
@inline function runPlaces(runs: usize, r: u32): usize {
  return <usize>load<u32>(runs + RUN * <usize>r, 4);
}

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
 * Each queued line's record id for each of the row's `nr` runs (the first
 * nr of the runs table) into ids[j × nr + r]; the (j × nr + r) of those not
 * rendered yet into `missing`. Returns how many are missing.
 */
export function places(n: u32, keysAt: usize, runs: usize, nr: u32, ids: usize, missing: usize): u32 {
  let m: u32 = 0;
  for (let j: u32 = 0; j < n; j++) {
    for (let r: u32 = 0; r < nr; r++) {
      const slot = load<i32>(runs + RUN * <usize>r);
      const id = slot < 0 ? 0 : load<u32>(keysAt + 4 * (KEYS * <usize>j + <usize>slot));
      const x = j * nr + r;
      store<u32>(ids + 4 * <usize>x, id);
      // Atomic: another thread may publish the place (its length first, then its start).
      if (atomic.load<i32>(runPlaces(runs, r) + 8 * <usize>id) == 0) {
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
        len += <usize>load<i32>(runPlaces(runs, <u32>r) + 8 * id, 4);
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
        const place = runPlaces(runs, <u32>r) + 8 * id;
        const runLen = <usize>load<i32>(place, 4);
        memory.copy(p, storeAt + <usize>(load<i32>(place) - 1), runLen);
        p += runLen;
      }
    }
  }
  store<u32>(status, <u32>p, 4);
  return j - from;
}

// ---- Rendering geo and network rows (core's snapshot/cells.ts, byte for byte) ----
//
// A run of geo or network fields is a program: triples of u32 [op, a, b],
// a literal (LIT: a is its offset in the literal area, b its length) or a
// field of the row. Each field is written as core's cell writer writes it
// (CSV: csvCell; JSON: JSON.stringify), or not at all: render() then
// returns NEEDS_HOST and the host renders the run with core's writers.
// That is the case for text core would change on decoding (bytes that are
// not valid UTF-8, a leading byte-order mark), JSON strings that need
// escapes, and values outside what a real snapshot holds (coordinates past
// ±1e5 degrees, days past 9999-12-31).

/** Where the record columns are: set once by setRecords from a table of addresses (RECORD_CONFIG words). */
let geoCC: usize = 0;
let geoRegion: usize = 0;
let geoCity: usize = 0;
let geoTZ: usize = 0;
let geoLat: usize = 0;
let geoLon: usize = 0;
let netAsn: usize = 0;
let netOrg: usize = 0;
let netRpki: usize = 0;
let netDay: usize = 0;
let netReg: usize = 0;
let strOffsets: usize = 0;
let strBytes: usize = 0;
/** The literal area (programs' literals), and the tables of u16 ids' cells ([address, length + 1] per id; 0: none made yet). */
let literals: usize = 0;
let ccNameCells: usize = 0;
let ccCodeCells: usize = 0;
let tzCells: usize = 0;
/** RPKI codes' cells, [address, length + 1] per code (256 codes). */
let rpkiCells: usize = 0;

/** setRecords' table: 19 addresses, in the order of the globals above. */
export function setRecords(config: usize): void {
  geoCC = load<u32>(config);
  geoRegion = load<u32>(config, 4);
  geoCity = load<u32>(config, 8);
  geoTZ = load<u32>(config, 12);
  geoLat = load<u32>(config, 16);
  geoLon = load<u32>(config, 20);
  netAsn = load<u32>(config, 24);
  netOrg = load<u32>(config, 28);
  netRpki = load<u32>(config, 32);
  netDay = load<u32>(config, 36);
  netReg = load<u32>(config, 40);
  strOffsets = load<u32>(config, 44);
  strBytes = load<u32>(config, 48);
  literals = load<u32>(config, 52);
  ccNameCells = load<u32>(config, 56);
  ccCodeCells = load<u32>(config, 60);
  tzCells = load<u32>(config, 64);
  rpkiCells = load<u32>(config, 68);
}

/** render()'s answers other than where the run ends. */
const NEEDS_HOST: usize = 0;
const NO_ROOM: usize = 1;

// Field ops (the host's RENDER_OPS).
const LIT: u32 = 0;
const GEO_COUNTRY: u32 = 1;
const GEO_COUNTRY_CODE: u32 = 2;
const GEO_REGION: u32 = 3;
const GEO_CITY: u32 = 4;
const GEO_LATITUDE: u32 = 5;
const GEO_LONGITUDE: u32 = 6;
const GEO_TIMEZONE: u32 = 7;
const NET_ASN: u32 = 8;
const NET_AS_ORG: u32 = 9;
const NET_ANNOUNCED: u32 = 10;
const NET_BOGON: u32 = 11;
const NET_RPKI: u32 = 12;
const NET_ALLOCATION_DATE: u32 = 13;
const NET_ALLOCATION_AGE: u32 = 14;
const NET_REGISTRATION_COUNTRY: u32 = 15;

const NULL_STRING: u32 = 0xffffffff;
const NULL_DAY: u32 = 0xffffffff;
const NET_ANNOUNCED_BIT: u8 = 1;
const NET_BOGON_BIT: u8 = 2;
/** Last day (9999-12-31) whose ISO date is YYYY-MM-DD (core's clock.ts). */
const LAST_PLAIN_DAY: u32 = 2932896;

/** The end of the room of the render in progress. */
let roomEnd: usize = 0;

/** Writes ASCII text of a JavaScript-free kind: "true", "false", "null", '""'. */
// @ts-ignore: decorator
@inline function putWord(p: usize, w: u64, n: usize): usize {
  if (p + 8 > roomEnd) return NO_ROOM;
  store<u64>(p, w);
  return p + n;
}
// The words, little-endian ("true", "false", "null", '""').
const TRUE: u64 = 0x65757274;
const FALSE: u64 = 0x65736c6166;
const NULL: u64 = 0x6c6c756e;
const EMPTY: u64 = 0x2222;

/** The cell made for id `id` in `table` ([address + 1, length]; 0: none); NEEDS_HOST while none is (the host makes it then). */
function tableCell(table: usize, id: u32, p: usize): usize {
  const e = table + 8 * <usize>id;
  // Atomic: another thread may publish the cell (its length first, then its address + 1).
  const a = <usize>atomic.load<u32>(e);
  if (a == 0) return NEEDS_HOST;
  const len = <usize>load<u32>(e, 4);
  if (p + len > roomEnd) return NO_ROOM;
  memory.copy(p, a - 1, len);
  return p + len;
}

/** v (< 2^32) in decimal. */
function decimal(v: u32, p: usize): usize {
  let digits: usize = 1;
  for (let t = v; t >= 10; t /= 10) digits++;
  if (p + digits > roomEnd) return NO_ROOM;
  let q = p + digits;
  do {
    q--;
    store<u8>(q, 48 + v % 10);
    v /= 10;
  } while (q > p);
  return p + digits;
}

/**
 * Whether bytes [s, e) decode to the same text under TextDecoder's rules
 * as their own code points: valid UTF-8, not starting with a byte-order
 * mark (which the decoder drops).
 */
function plainUtf8(s: usize, e: usize): bool {
  if (e - s >= 3 && load<u8>(s) == 0xef && load<u8>(s, 1) == 0xbb && load<u8>(s, 2) == 0xbf) return false;
  let i = s;
  while (i < e) {
    const b = <u32>load<u8>(i);
    if (b < 0x80) {
      i++;
      continue;
    }
    let n: usize;
    let lo: u32 = 0x80;
    let hi: u32 = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) n = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      n = 2;
      if (b == 0xe0) lo = 0xa0;
      else if (b == 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      n = 3;
      if (b == 0xf0) lo = 0x90;
      else if (b == 0xf4) hi = 0x8f;
    } else return false;
    if (i + n >= e) return false; // fewer than n continuation bytes left
    const c1 = <u32>load<u8>(i + 1);
    if (c1 < lo || c1 > hi) return false;
    for (let k: usize = 2; k <= n; k++) {
      const c = <u32>load<u8>(i + k);
      if (c < 0x80 || c > 0xbf) return false;
    }
    i += n + 1;
  }
  return true;
}

/** String `id`'s CSV cell (core's strCell). */
function stringCsv(id: u32, p: usize): usize {
  if (id == NULL_STRING) return p;
  const s = <usize>load<u32>(strOffsets + 4 * <usize>id);
  const e = <usize>load<u32>(strOffsets + 4 * <usize>id, 4);
  if (s == e) return putWord(p, EMPTY, 2);
  let quotes: usize = 0;
  let special = false;
  let high = false;
  for (let i = s; i < e; i++) {
    const b = load<u8>(strBytes + i);
    if (b >= 0x80) high = true;
    else if (b == 0x22) quotes++;
    else if (b == 0x2c || b == 0x0d || b == 0x0a) special = true;
  }
  if (high && !plainUtf8(strBytes + s, strBytes + e)) return NEEDS_HOST;
  const wrap = quotes > 0 || special;
  if (p + (e - s) + quotes + (wrap ? 2 : 0) > roomEnd) return NO_ROOM;
  if (wrap) store<u8>(p++, 0x22);
  if (quotes == 0) {
    memory.copy(p, strBytes + s, e - s);
    p += e - s;
  } else {
    for (let i = s; i < e; i++) {
      const b = load<u8>(strBytes + i);
      store<u8>(p++, b);
      if (b == 0x22) store<u8>(p++, 0x22);
    }
  }
  if (wrap) store<u8>(p++, 0x22);
  return p;
}

/** String `id`'s JSON value (core's strJson), or NEEDS_HOST for one that needs escapes. */
function stringJson(id: u32, p: usize): usize {
  if (id == NULL_STRING) return putWord(p, NULL, 4);
  const s = <usize>load<u32>(strOffsets + 4 * <usize>id);
  const e = <usize>load<u32>(strOffsets + 4 * <usize>id, 4);
  let high = false;
  for (let i = s; i < e; i++) {
    const b = load<u8>(strBytes + i);
    if (b >= 0x80) high = true;
    else if (b < 0x20 || b == 0x22 || b == 0x5c) return NEEDS_HOST;
  }
  if (high && !plainUtf8(strBytes + s, strBytes + e)) return NEEDS_HOST;
  if (p + (e - s) + 2 > roomEnd) return NO_ROOM;
  store<u8>(p++, 0x22);
  memory.copy(p, strBytes + s, e - s);
  p += e - s;
  store<u8>(p++, 0x22);
  return p;
}

/** A stored float32 coordinate as core's coordinateText writes it (a count of 1e-4 degrees, trailing zeros dropped). */
function coordinate(x: f32, p: usize): usize {
  const v = <f64>x * 1e4;
  // Math.round: the nearest integer, halves towards +infinity.
  let r = Math.ceil(v);
  if (r - 0.5 > v) r -= 1;
  if (!(r > -1e9 && r < 1e9)) return NEEDS_HOST;
  if (p + 16 > roomEnd) return NO_ROOM;
  let m = <i32>r;
  if (m < 0) {
    store<u8>(p++, 0x2d);
    m = -m;
  }
  const whole = <u32>m / 10000;
  let frac = <u32>m - whole * 10000;
  p = decimal(whole, p);
  if (frac != 0) {
    store<u8>(p++, 0x2e);
    let digits: usize = 4;
    while (frac % 10 == 0) {
      frac /= 10;
      digits--;
    }
    for (let q = p + digits - 1; q >= p; q--) {
      store<u8>(q, 48 + frac % 10);
      frac /= 10;
    }
    p += digits;
  }
  return p;
}

/** Day number `day` (<= LAST_PLAIN_DAY) as YYYY-MM-DD (core's isoDay). */
function isoDay(day: u32, p: usize): usize {
  const z = day + 719468;
  const era = z / 146097;
  const doe = z - era * 146097;
  const yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const mp = (5 * doy + 2) / 153;
  const d = doy - (153 * mp + 2) / 5 + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  store<u8>(p, 48 + y / 1000);
  store<u8>(p, 48 + (y / 100) % 10, 1);
  store<u8>(p, 48 + (y / 10) % 10, 2);
  store<u8>(p, 48 + y % 10, 3);
  store<u8>(p, 0x2d, 4);
  store<u8>(p, 48 + m / 10, 5);
  store<u8>(p, 48 + m % 10, 6);
  store<u8>(p, 0x2d, 7);
  store<u8>(p, 48 + d / 10, 8);
  store<u8>(p, 48 + d % 10, 9);
  return p + 10;
}

/**
 * Writes run `prog` (nops ops) for geo or network row `row` at `out`, with
 * room until `end`; `json` picks JSON values over CSV cells, `today` is the
 * UTC day number (allocation_age_days). Returns where the run ends,
 * NO_ROOM, or NEEDS_HOST (see above).
 */
export function render(prog: usize, nops: u32, row: u32, today: i32, json: bool, out: usize, end: usize): usize {
  roomEnd = end;
  let p = out;
  const r = <usize>row;
  for (let i: u32 = 0; i < nops; i++) {
    const op = load<u32>(prog + 12 * <usize>i);
    switch (op) {
      case LIT: {
        const len = <usize>load<u32>(prog + 12 * <usize>i, 8);
        if (p + len > roomEnd) return NO_ROOM;
        memory.copy(p, literals + <usize>load<u32>(prog + 12 * <usize>i, 4), len);
        p += len;
        break;
      }
      case GEO_COUNTRY:
        p = tableCell(ccNameCells, load<u16>(geoCC + 2 * r), p);
        break;
      case GEO_COUNTRY_CODE:
        p = tableCell(ccCodeCells, load<u16>(geoCC + 2 * r), p);
        break;
      case GEO_TIMEZONE:
        p = tableCell(tzCells, load<u16>(geoTZ + 2 * r), p);
        break;
      case GEO_REGION:
        p = json ? stringJson(load<u32>(geoRegion + 4 * r), p) : stringCsv(load<u32>(geoRegion + 4 * r), p);
        break;
      case GEO_CITY:
        p = json ? stringJson(load<u32>(geoCity + 4 * r), p) : stringCsv(load<u32>(geoCity + 4 * r), p);
        break;
      case GEO_LATITUDE:
        p = coordinate(load<f32>(geoLat + 4 * r), p);
        break;
      case GEO_LONGITUDE:
        p = coordinate(load<f32>(geoLon + 4 * r), p);
        break;
      case NET_ASN:
        p = decimal(load<u32>(netAsn + 4 * r), p);
        break;
      case NET_AS_ORG: {
        const id = load<u32>(netOrg + 4 * r);
        // A missing organisation is '' in the object: a quoted empty cell, an empty JSON string.
        p = id == NULL_STRING ? putWord(p, EMPTY, 2) : json ? stringJson(id, p) : stringCsv(id, p);
        break;
      }
      case NET_ANNOUNCED:
      case NET_BOGON: {
        const bit = op == NET_ANNOUNCED ? NET_ANNOUNCED_BIT : NET_BOGON_BIT;
        p = (load<u8>(netFlags + r) & bit) != 0 ? putWord(p, TRUE, 4) : putWord(p, FALSE, 5);
        break;
      }
      case NET_RPKI:
        p = tableCell(rpkiCells, load<u8>(netRpki + r), p);
        break;
      case NET_ALLOCATION_DATE: {
        const day = load<u32>(netDay + 4 * r);
        if (day == NULL_DAY) {
          if (json) p = putWord(p, NULL, 4);
        } else if (day > LAST_PLAIN_DAY) return NEEDS_HOST;
        else {
          if (p + 12 > roomEnd) return NO_ROOM;
          if (json) store<u8>(p++, 0x22);
          p = isoDay(day, p);
          if (json) store<u8>(p++, 0x22);
        }
        break;
      }
      case NET_ALLOCATION_AGE: {
        const day = load<u32>(netDay + 4 * r);
        if (day == NULL_DAY) {
          if (json) p = putWord(p, NULL, 4);
        } else {
          const age = <i64>today - <i64>day;
          p = decimal(age > 0 ? <u32>age : 0, p);
        }
        break;
      }
      case NET_REGISTRATION_COUNTRY:
        p = json ? stringJson(load<u32>(netReg + 4 * r), p) : stringCsv(load<u32>(netReg + 4 * r), p);
        break;
      default:
        return NEEDS_HOST;
    }
    if (p <= NO_ROOM) return p;
  }
  return p;
}

/**
 * Reads ahead what rendering geo rows (`kind` 0) or network rows (1)
 * rows[0, n) will read (core's RecordCells.warm): every column at each row,
 * then each string's offsets, then its first bytes, one stage over all rows
 * at a time, so that the rows' cache misses overlap. `ids` is scratch of 2n
 * u32. Returns a sum of what it read, so that no read is dropped.
 */
export function warm(kind: u32, rows: usize, n: u32, ids: usize): u32 {
  let t: u32 = 0;
  for (let i: usize = 0; i < n; i++) {
    const r = <usize>load<u32>(rows + 4 * i);
    if (kind == 0) {
      t += <u32>load<u16>(geoCC + 2 * r) + <u32>load<u16>(geoTZ + 2 * r) + load<u32>(geoLat + 4 * r) + load<u32>(geoLon + 4 * r);
      store<u32>(ids + 8 * i, load<u32>(geoRegion + 4 * r));
      store<u32>(ids + 8 * i, load<u32>(geoCity + 4 * r), 4);
    } else {
      t += load<u32>(netAsn + 4 * r) + <u32>load<u8>(netFlags + r) + <u32>load<u8>(netRpki + r) + load<u32>(netDay + 4 * r);
      store<u32>(ids + 8 * i, load<u32>(netOrg + 4 * r));
      store<u32>(ids + 8 * i, load<u32>(netReg + 4 * r), 4);
    }
  }
  const m: usize = 2 * <usize>n;
  for (let i: usize = 0; i < m; i++) {
    const id = load<u32>(ids + 4 * i);
    store<u32>(ids + 4 * i, id == NULL_STRING ? 0 : load<u32>(strOffsets + 4 * <usize>id));
  }
  for (let i: usize = 0; i < m; i++) t += load<u8>(strBytes + <usize>load<u32>(ids + 4 * i));
  return t;
}

// ---- Filling what places() found missing ----

/** fill()'s answers in status[0]: every entry done (or left for the host), or the chunk is short. */
const FILLED: u32 = 0;
const FILL_NO_ROOM: u32 = 1;

/** The key of queued line j for `slot` (-1: 0), computing the network row, signal set and evidence key from the pair when asked. */
function keyOf(keysAt: usize, j: usize, slot: i32): u32 {
  if (slot < 0) return 0;
  const k = keysAt + 4 * KEYS * j;
  if (slot >= 1 && slot <= 3) {
    const pair = <usize>load<u32>(k, 16);
    const net = load<u32>(pairNet + 4 * pair);
    const sig = load<u32>(pairSig + 4 * pair);
    store<u32>(k, net, 4);
    store<u32>(k, sig, 8);
    store<u32>(k, 2 * sig + ((load<u8>(netFlags + <usize>net) & ROUTING_INFERRED) != 0 ? 1 : 0), 12);
  }
  return load<u32>(k + 4 * <usize>slot);
}

/** Publishes a place: the length, then (atomically, for the other threads) the start. */
// @ts-ignore: decorator
@inline function publish(place: usize, start: usize, storeAt: usize, len: usize): void {
  store<i32>(place, <i32>len, 4);
  atomic.store<i32>(place, <i32>(start - storeAt + 1));
}

/**
 * Reads ahead (warm) what rendering the geo and network rows of the missing
 * entries will read: the rows of cells runs, and the network row of a joined
 * run with a network piece not rendered; geo rows listed from the front of
 * `rows`, network rows from the back. At most one row per entry, so the two
 * lists together hold at most m (a joined run may have several network
 * pieces, split by text columns, all of the same row: listing the row once
 * per piece overran `rows` into the missing list). Returns warm's sums.
 */
function readAhead(keysAt: usize, runs: usize, nr: u32, ids: usize, missing: usize, m: u32, rows: usize, scratch: usize): u32 {
  let g: usize = 0;
  let n: usize = 0;
  const back = rows + 4 * <usize>m;
  for (let i: u32 = 0; i < m; i++) {
    const x = load<u32>(missing + 4 * <usize>i);
    const run = runs + RUN * <usize>(x % nr);
    const kind = load<u32>(run, 8);
    if (kind == CELLS) {
      const id = load<u32>(ids + 4 * <usize>x);
      if (load<i32>(runPlaces(run, 0) + 8 * <usize>id) != 0) continue;
      if (load<i32>(run) == 0) store<u32>(rows + 4 * g++, id);
      else store<u32>(back - 4 * ++n, id);
    } else if (kind == JOINED) {
      const subs = <usize>load<u32>(run, 12);
      const count = load<u32>(run, 16);
      for (let s: u32 = 0; s < count; s++) {
        const sub = runs + RUN * <usize>load<u32>(subs + 4 * <usize>s);
        if (load<u32>(sub, 8) != CELLS || load<i32>(sub) != 1) continue;
        const id = keyOf(keysAt, <usize>(x / nr), 1);
        if (load<i32>(runPlaces(sub, 0) + 8 * <usize>id) == 0) {
          store<u32>(back - 4 * ++n, id);
          break;
        }
      }
    }
  }
  return warm(0, rows, <u32>g, scratch) + warm(1, back - 4 * n, <u32>n, scratch);
}

/** Where fill() writes, and up to where (set per call). */
let fillPos: usize = 0;
let fillEnd: usize = 0;

/**
 * Renders cells run r (kind CELLS) for record `id` at fillPos and publishes
 * it: 1 done, 0 left for the host (NEEDS_HOST), -1 no room.
 */
function fillCells(run: usize, id: u32, today: i32, json: bool, storeAt: usize): i32 {
  const e = render(<usize>load<u32>(run, 12), load<u32>(run, 16), id, today, json, fillPos, fillEnd);
  if (e == NEEDS_HOST) return 0;
  if (e == NO_ROOM) return -1;
  publish(runPlaces(run, 0) + 8 * <usize>id, fillPos, storeAt, e - fillPos);
  fillPos = e;
  return 1;
}

/**
 * Renders what places() found missing (`missing`[from, m): j × nr + r),
 * in this thread's chunk of the store from `pos` to `end`: cells runs by
 * render(), joined runs by copying their runs' bytes (rendering the cells
 * ones missing). Entries it cannot do (text runs, joined runs with a text
 * run not rendered yet, what render() leaves to the host) are moved to the
 * front of the list, after [0, from). A place rendered meanwhile (by another
 * thread, or for another line) is skipped. Returns the end of that front
 * part; status gets [FILLED or FILL_NO_ROOM, where the chunk's bytes end,
 * the end of the list]: with FILL_NO_ROOM, the entries not done yet follow
 * the front part, for a call with a new chunk.
 */
export function fill(
  keysAt: usize, runs: usize, nr: u32, ids: usize, missing: usize, from: u32, m: u32,
  storeAt: usize, pos: usize, end: usize, today: i32, json: bool, status: usize, warmRows: usize, warmIds: usize,
): u32 {
  fillPos = pos;
  fillEnd = end;
  if (from == 0) store<u32>(status, readAhead(keysAt, runs, nr, ids, missing, m, warmRows, warmIds), 12);
  let left = from;
  let how = FILLED;
  let i = from;
  for (; i < m; i++) {
    const x = load<u32>(missing + 4 * <usize>i);
    const j = <usize>(x / nr);
    const r = x % nr;
    const run = runs + RUN * <usize>r;
    const id = load<u32>(ids + 4 * <usize>x);
    const place = runPlaces(runs, r) + 8 * <usize>id;
    if (atomic.load<i32>(place) != 0) continue;
    const kind = load<u32>(run, 8);
    let done: i32 = 0;
    if (kind == CELLS) done = fillCells(run, id, today, json, storeAt);
    else if (kind == JOINED) {
      const subs = <usize>load<u32>(run, 12);
      const count = load<u32>(run, 16);
      // Its runs first: each rendered, or renderable here.
      let total: usize = 0;
      done = 1;
      for (let s: u32 = 0; s < count && done == 1; s++) {
        const sub = runs + RUN * <usize>load<u32>(subs + 4 * <usize>s);
        const subId = keyOf(keysAt, j, load<i32>(sub));
        const sp = runPlaces(sub, 0) + 8 * <usize>subId;
        if (atomic.load<i32>(sp) == 0) done = load<u32>(sub, 8) == CELLS ? fillCells(sub, subId, today, json, storeAt) : 0;
        if (done == 1) total += <usize>load<i32>(sp, 4);
      }
      if (done == 1) {
        if (fillPos + total > fillEnd) done = -1;
        else {
          const start = fillPos;
          for (let s: u32 = 0; s < count; s++) {
            const sub = runs + RUN * <usize>load<u32>(subs + 4 * <usize>s);
            const sp = runPlaces(sub, 0) + 8 * <usize>keyOf(keysAt, j, load<i32>(sub));
            const len = <usize>load<i32>(sp, 4);
            memory.copy(fillPos, storeAt + <usize>(load<i32>(sp) - 1), len);
            fillPos += len;
          }
          publish(place, start, storeAt, total);
        }
      }
    }
    if (done == -1) {
      how = FILL_NO_ROOM;
      break;
    }
    if (done == 0) {
      store<u32>(missing + 4 * <usize>left, x);
      left++;
    }
  }
  // With no room: the entries not done yet follow the front part.
  let endOfList = left;
  for (; i < m && how == FILL_NO_ROOM; i++) {
    store<u32>(missing + 4 * <usize>endOfList, load<u32>(missing + 4 * <usize>i));
    endOfList++;
  }
  store<u32>(status, how);
  store<u32>(status, <u32>fillPos, 4);
  store<u32>(status, endOfList, 8);
  return left;
}
