#!/usr/bin/env node
// Experiment (issue 13, thirteenth round; format 4's /24 maps came out of it):
// can successive one-at-a-time
// IPv4 lookups overlap their block reads? A block's short scan
// (`while (j < k && start[j] <= low) j++`) ends on a branch that depends on
// the block's bytes, so when the block comes from memory the CPU mispredicts
// that exit after the miss and throws away whatever of the next lookup it had
// started. Variants that search with a trip count the bytes do not decide
// leave no such branch after the block read. Not part of `pnpm bench`;
// docs/design.md ("Thirteenth round") quotes its output.
//
//   node tools/bench/experiments/v4-scan.mjs [SNAPSHOT] [--rounds N]
//
// Every variant is checked against `leafOfIPv4` on every input address, then
// timed side by side (`rates` of ../common.mjs, rotating) on 1,000,000 random
// public IPv4 addresses, one call per address, as section 2 of `pnpm bench`.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { openSync } from '../../../packages/core/dist/index.js';
import { leafOfIPv4 } from '../../../packages/core/dist/internal.js';
import { load, randomPublicV4, rates, shuffled } from '../common.mjs';
import { format3Index } from './format3.mjs';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { rounds: { type: 'string', default: '8' } } });
const world = new URL('../../../.cache/world.ipintel', import.meta.url).pathname;
const snapshot = positionals[0] ?? (existsSync(world) ? world : new URL('../../../packages/data/world.ipintel', import.meta.url).pathname);
const intel = openSync(snapshot);

// Format 3's table and blocks (format3.mjs), what this round started from:
// `now` below is its lookup, and the other layouts are made from it.
const f3 = format3Index(intel);
const dir = f3.dir;
const shift = 32 - Math.log2(dir.length);
const mask = 2 ** shift - 1;
// Padded by 16 bytes, so a fixed-length read past the last block stays inside the array.
const blk = new Uint8Array(f3.blk.length + 16);
blk.set(f3.blk);

// Block statistics, address-weighted (what a random lookup meets).
const hist = new Float64Array(9);
let direct = 0;
let longer = 0;
for (let d = 0; d < dir.length; d++) {
  const e = dir[d];
  if (e >= 0) direct++;
  else {
    const k = blk[e & 0x7fffffff] | (blk[(e & 0x7fffffff) + 1] << 8);
    if (k <= 8) hist[k]++;
    else longer++;
  }
}

/** Format 3's binary search: the count of a block's k starts (u16, from byte s) that are <= low. */
function binary3(s, k, low) {
  let j = 0;
  let r = k;
  while (j < r) {
    const m = (j + r) >>> 1;
    if ((blk[s + 2 * m] | (blk[s + 2 * m + 1] << 8)) <= low) j = m + 1;
    else r = m;
  }
  return j;
}

/** Format 3's search (V4Index's segmentOf then): a scan of a short block, else binary3. */
function segmentOf3(s, k, low) {
  if (k > 8) return binary3(s, k, low);
  let j = 0;
  while (j < k && (blk[s + 2 * j] | (blk[s + 2 * j + 1] << 8)) <= low) j++;
  return j;
}

/** Leaf j of the block at o with k starts. */
function leaf3(o, k, j) {
  const at = o + 2 + 2 * k + 3 * j;
  return blk[at] | (blk[at + 1] << 8) | (blk[at + 2] << 16);
}

/** Format 3's lookup (V4Index#leaf before this round). */
function now(addr) {
  const e = dir[addr >>> shift];
  if (e >= 0) return e;
  const o = e & 0x7fffffff;
  const k = blk[o] | (blk[o + 1] << 8);
  return leaf3(o, k, segmentOf3(o + 2, k, addr & mask));
}

/** 1 when start i of the block's starts at s is <= low and i < k, else 0, by arithmetic: (x - low - 1) >>> 31 is 1 when x <= low. */
function le3(s, i, k, low) {
  return (((blk[s + 2 * i] | (blk[s + 2 * i + 1] << 8)) - low - 1) >>> 31) & ((i - k) >>> 31);
}

/** The first four of le3's terms. */
function first4(s, k, low) {
  return le3(s, 0, k, low) + le3(s, 1, k, low) + le3(s, 2, k, low) + le3(s, 3, k, low);
}

/** The next four. */
function next4(s, k, low) {
  return le3(s, 4, k, low) + le3(s, 5, k, low) + le3(s, 6, k, low) + le3(s, 7, k, low);
}

/** Count of starts <= low among 8 (the ones past k masked off), by arithmetic: no branch on the block's bytes. */
function fixed8(addr) {
  const e = dir[addr >>> shift];
  if (e >= 0) return e;
  const o = e & 0x7fffffff;
  const k = blk[o] | (blk[o + 1] << 8);
  const low = addr & mask;
  return leaf3(o, k, k <= 8 ? first4(o + 2, k, low) + next4(o + 2, k, low) : binary3(o + 2, k, low));
}

/** Fixed 4 for k <= 4 (one branch on k, which a lookup knows when the block's first bytes come in), else fixed 8. */
function fixed4or8(addr) {
  const e = dir[addr >>> shift];
  if (e >= 0) return e;
  const o = e & 0x7fffffff;
  const k = blk[o] | (blk[o + 1] << 8);
  const low = addr & mask;
  if (k > 8) return leaf3(o, k, binary3(o + 2, k, low));
  const j = first4(o + 2, k, low);
  return leaf3(o, k, k > 4 ? j + next4(o + 2, k, low) : j);
}

// /24 maps: a block whose starts all fall on /24 boundaries becomes its bucket's
// leaves per /24 (16 for a /20 bucket), one line of 64 bytes, read at
// (low >> 8) * 3 with no search. dir2's entries: >= 0 a leaf; bit 30 set a
// map (its index in the low 30 bits); else a block, as before.
const per24 = (mask + 1) >> 8;
const mapSlot = Math.max(64, 3 * per24);
let mapCount = 0;
const isAligned = (o, k) => {
  for (let q = 1; q <= k; q++) if (((blk[o + 2 * q] | (blk[o + 2 * q + 1] << 8)) & 0xff) !== 0) return false;
  return true;
};
for (let d = 0; d < dir.length; d++) {
  const e = dir[d];
  if (e < 0 && isAligned(e & 0x7fffffff, blk[e & 0x7fffffff] | (blk[(e & 0x7fffffff) + 1] << 8))) mapCount++;
}
const maps = new Uint8Array(mapCount * mapSlot);
const dir2 = new Int32Array(dir.length);
for (let d = 0, m = 0; d < dir.length; d++) {
  const e = dir[d];
  const o = e & 0x7fffffff;
  const k = e < 0 ? blk[o] | (blk[o + 1] << 8) : 0;
  if (e >= 0 || !isAligned(o, k)) {
    dir2[d] = e;
    continue;
  }
  const leavesAt = o + 2 + 2 * k;
  for (let q = 0, t = 0; t < per24; t++) {
    while (q < k && (blk[o + 2 + 2 * q] | (blk[o + 3 + 2 * q] << 8)) >> 8 <= t) q++;
    maps.set(blk.subarray(leavesAt + 3 * q, leavesAt + 3 * q + 3), m * mapSlot + 3 * t);
  }
  dir2[d] = (0xc0000000 | m++) | 0;
}

function map24(addr) {
  const e = dir2[addr >>> shift];
  if (e >= 0) return e;
  if ((e & 0x40000000) !== 0) {
    const at = (e & 0x3fffffff) * mapSlot + 3 * ((addr & mask) >>> 8);
    return maps[at] | (maps[at + 1] << 8) | (maps[at + 2] << 16);
  }
  // A block, as in now() (dir2 holds the same offset as dir).
  const o = e & 0x7fffffff;
  const k = blk[o] | (blk[o + 1] << 8);
  return leaf3(o, k, segmentOf3(o + 2, k, addr & mask));
}

// Two levels under the table: a non-direct bucket (2^12 addresses) gets a map
// of its 16 /24s, one aligned 64-byte line of Int32s: >= 0 the /24's leaf,
// else the offset of a small block for a /24 that holds more than one range
// (u8 k, u8 starts x k, u24 leaves x (k + 1)). Most lookups then end on a
// read whose value no branch depends on.
if (shift !== 12) throw new Error('the two-level variant assumes a 2^20 table');
const dirT = new Int32Array(dir.length);
const mapsT = new Int32Array((dir.length - direct) * 16);
const subParts = [];
let subBytes = 0;
let mapsUsed = 0;
for (let d = 0; d < dir.length; d++) {
  const e = dir[d];
  if (e >= 0) {
    dirT[d] = e;
    continue;
  }
  const o = e & 0x7fffffff;
  const k = blk[o] | (blk[o + 1] << 8);
  const starts = [0];
  for (let q = 1; q <= k; q++) starts.push(blk[o + 2 * q] | (blk[o + 2 * q + 1] << 8));
  const leaves = [];
  for (let q = 0; q <= k; q++) {
    const at = o + 2 + 2 * k + 3 * q;
    leaves.push(blk[at] | (blk[at + 1] << 8) | (blk[at + 2] << 16));
  }
  const m = mapsUsed++;
  dirT[d] = (0x80000000 | m) | 0;
  for (let t = 0, q = 0; t < 16; t++) {
    while (q + 1 <= k && starts[q + 1] <= t * 256) q++;
    // Pieces starting inside this /24 (after its first address).
    const inner = [];
    let r = q + 1;
    while (r <= k && starts[r] < (t + 1) * 256) inner.push(r++);
    if (inner.length === 0) {
      mapsT[16 * m + t] = leaves[q];
      continue;
    }
    const part = new Uint8Array(1 + inner.length + 3 * (inner.length + 1));
    part[0] = inner.length;
    inner.forEach((x, i) => (part[1 + i] = starts[x] - t * 256));
    [q, ...inner].forEach((x, i) => {
      const at = 1 + inner.length + 3 * i;
      part[at] = leaves[x] & 255;
      part[at + 1] = (leaves[x] >>> 8) & 255;
      part[at + 2] = leaves[x] >>> 16;
    });
    mapsT[16 * m + t] = (0x80000000 | subBytes) | 0;
    subParts.push(part);
    subBytes += part.length;
  }
}
const subT = new Uint8Array(subBytes + 16);
for (let at = 0, i = 0; i < subParts.length; at += subParts[i++].length) subT.set(subParts[i], at);

function two(addr) {
  const e = dirT[addr >>> 12];
  if (e >= 0) return e;
  const m = mapsT[((e & 0x7fffffff) << 4) | ((addr >>> 8) & 15)];
  if (m >= 0) return m;
  const o = m & 0x7fffffff;
  const k = subT[o];
  const low = addr & 255;
  let j = 0;
  while (j < k && subT[o + 1 + j] <= low) j++;
  const at = o + 1 + k + 3 * j;
  return subT[at] | (subT[at + 1] << 8) | (subT[at + 2] << 16);
}

// The same two levels in one byte column, as a format would store them: a
// non-direct bucket's record is its map (16 u24 entries: < 2^23 a leaf, else
// 2^23 + the offset of the /24's block from the record's start) followed by
// its /24 blocks.
const recs = [];
let recBytes = 0;
const dirR = new Int32Array(dir.length);
for (let d = 0; d < dir.length; d++) {
  const e = dirT[d];
  if (e >= 0) {
    dirR[d] = e;
    continue;
  }
  const m = e & 0x7fffffff;
  const parts = [];
  let tail = 48;
  const rec = [];
  for (let t = 0; t < 16; t++) {
    const v = mapsT[16 * m + t];
    if (v >= 0) rec.push(v);
    else {
      const o = v & 0x7fffffff;
      const k = subT[o];
      const part = subT.subarray(o, o + 1 + k + 3 * (k + 1));
      rec.push(0x800000 + tail);
      parts.push(part);
      tail += part.length;
    }
  }
  const bytes = new Uint8Array(tail);
  rec.forEach((v, t) => {
    bytes[3 * t] = v & 255;
    bytes[3 * t + 1] = (v >>> 8) & 255;
    bytes[3 * t + 2] = v >>> 16;
  });
  for (let at = 48, i = 0; i < parts.length; at += parts[i++].length) bytes.set(parts[i], at);
  dirR[d] = (0x80000000 | recBytes) | 0;
  recs.push(bytes);
  recBytes += tail;
}
const blkR = new Uint8Array(recBytes + 16);
for (let at = 0, i = 0; i < recs.length; at += recs[i++].length) blkR.set(recs[i], at);

function two24(addr) {
  const e = dirR[addr >>> 12];
  if (e >= 0) return e;
  const o = e & 0x7fffffff;
  const at = o + 3 * ((addr >>> 8) & 15);
  const v = blkR[at] | (blkR[at + 1] << 8) | (blkR[at + 2] << 16);
  if (v < 0x800000) return v;
  const s = o + v - 0x800000;
  const k = blkR[s];
  const low = addr & 255;
  let j = 0;
  while (j < k && blkR[s + 1 + j] <= low) j++;
  const l = s + 1 + k + 3 * j;
  return blkR[l] | (blkR[l + 1] << 8) | (blkR[l + 2] << 16);
}

// Floors, not lookups (wrong answers; not checked): the table read alone, and
// the table read plus one byte of the block (the least any block lookup reads).
function floorTable(addr) {
  return dir[addr >>> shift];
}
function floorOneRead(addr) {
  const e = dir[addr >>> shift];
  if (e >= 0) return e;
  return blk[e & 0x7fffffff] + 1;
}

const N = 1_000_000;
const addrs = randomPublicV4(N, 7);
const orders = [0, 1, 2].map((s) => shuffled(N, 100 + s));
const variants = { now, fixed8, fixed4or8, map24, two, two24 };
for (let i = 0; i < N; i++) {
  const want = leafOfIPv4(intel, addrs[i]);
  for (const [name, f] of Object.entries(variants)) if (f(addrs[i]) !== want) throw new Error(`${name} answers ${addrs[i]} differently`);
}
// Address-weighted: what share of random public addresses meets each block length.
const seen = new Float64Array(10);
for (let i = 0; i < N; i++) {
  const e = dir[addrs[i] >>> shift];
  if (e >= 0) seen[0]++;
  else {
    const k = blk[e & 0x7fffffff] | (blk[(e & 0x7fffffff) + 1] << 8);
    seen[Math.min(k, 9)]++;
  }
}
let mapped = 0;
for (let i = 0; i < N; i++) if (dir2[addrs[i] >>> shift] >>> 30 === 3) mapped++;
console.log(`/24 maps: ${mapCount} of ${dir.length - direct} blocks, ${(maps.length / 1e6).toFixed(1)} MB (blocks ${(blk.length / 1e6).toFixed(1)} MB); addresses answered by a map: ${((100 * mapped) / N).toFixed(1)}%`);
let inMap = 0;
let inSub = 0;
for (let i = 0; i < N; i++) {
  const e = dirT[addrs[i] >>> 12];
  if (e < 0) mapsT[((e & 0x7fffffff) << 4) | ((addrs[i] >>> 8) & 15)] >= 0 ? inMap++ : inSub++;
}
console.log(`two levels in one column: ${(recBytes / 1e6).toFixed(1)} MB`);
console.log(`two levels: maps ${(mapsT.byteLength / 1e6).toFixed(1)} MB, /24 blocks ${(subBytes / 1e6).toFixed(1)} MB; addresses: a map's leaf ${((100 * inMap) / N).toFixed(1)}%, a /24 block ${((100 * inSub) / N).toFixed(1)}%`);
const pct = (x) => `${((100 * x) / N).toFixed(1)}%`;
console.log(`snapshot ${snapshot}, load ${load()}`);
console.log(`buckets: ${dir.length}, direct ${direct}, blocks by starts k=1..8: ${[...hist.slice(1)].join(' ')}, k>8: ${longer}`);
console.log(`addresses: direct ${pct(seen[0])}; k=1..8: ${[...seen.slice(1, 9)].map(pct).join(' ')}; k>8: ${pct(seen[9])}`);
const fns = { leafOfIPv4: (i, o) => leafOfIPv4(intel, addrs[orders[o][i]]) };
for (const [name, f] of Object.entries(variants)) fns[name] = (i, o) => f(addrs[orders[o][i]]);
// Whole checks: two more opens of the snapshot, each with its index's leaf()
// replaced by a variant (the rest of check() unchanged), beside the stock one.
const texts = Array.from(addrs, (a) => `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`);
const checkers = { check: intel };
for (const [name, f] of [['check now', now], ['check map24', map24], ['check two', two], ['check two24', two24]]) {
  const other = openSync(snapshot);
  const internals = other[Object.getOwnPropertySymbols(other).find((s) => s.description === 'ipintel.internal')];
  internals.index.v4.leaf = f;
  checkers[name] = other;
}
for (let i = 0; i < N; i += 97) {
  const want = JSON.stringify(intel.check(texts[i]));
  for (const [name, x] of Object.entries(checkers)) if (JSON.stringify(x.check(texts[i])) !== want) throw new Error(`${name} answers ${texts[i]} differently`);
}
for (const [name, x] of Object.entries(checkers)) fns[name] = (i, o) => x.check(texts[orders[o][i]]);
fns['floor: table'] = (i, o) => floorTable(addrs[orders[o][i]]);
fns['floor: +1 read'] = (i, o) => floorOneRead(addrs[orders[o][i]]);
const r = rates(fns, N, { rounds: Number(values.rounds), rotate: true });
for (const [name, v] of Object.entries(r)) console.log(`${name.padEnd(15)} ${(v / 1e6).toFixed(2).padStart(6)} M/s ${(1e9 / v).toFixed(0).padStart(5)} ns  ${(v / (name.startsWith('check') ? r['check now'] : r.now)).toFixed(2)}x`);
