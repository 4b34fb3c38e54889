#!/usr/bin/env node
// Experiment (issue 13, sixth round): how many dependent reads an IPv4 check
// makes, and what other layouts of the same snapshot would save. Not part of
// `pnpm bench`; docs/design.md ("Sixth round") quotes its output.
//
//   node tools/bench/experiments/ipv4-layouts.mjs [SNAPSHOT] [--rounds N]
//
// Every layout is built in memory from the snapshot's own columns (read
// through the public `share()`), checked against the current one on every
// input address, then timed side by side (`rates` of ../common.mjs, the
// contenders' order rotating each round) on 1,000,000 random public IPv4
// addresses. "chain" variants do what check() does after the parse: find the
// address's geo row, network row and signal set, read the five part caches
// (filled, as in a warm process) and make the result object; "raw" variants
// only find the leaf.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { openSync } from '../../../packages/core/dist/index.js';
import { load, randomPublicV4, rates, shuffled } from '../common.mjs';
import { format3Index } from './format3.mjs';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { rounds: { type: 'string', default: '10' } } });
const world = new URL('../../../.cache/world.ipintel', import.meta.url).pathname;
const snapshot = positionals[0] ?? (existsSync(world) ? world : new URL('../../../packages/data/world.ipintel', import.meta.url).pathname);
const opened = openSync(snapshot);
const c = opened.share().columns;

const BLOCK = 0x80000000;
// Format 3's table and blocks, the layout this round measured against (format3.mjs).
const { dir, blk } = format3Index(opened);
const shift = 32 - Math.log2(dir.length);
const mask = 2 ** shift - 1;
const ids = c['leaf.ids'];
const pairNet = c['pair.net'];
const pairSig = c['pair.sig'];
const netFlags = c['net.flags'];
const leafCount = ids.length / 3;
const u16 = (b, i) => b[i] | (b[i + 1] << 8);
const u24 = (b, i) => b[i] | (b[i + 1] << 8) | (b[i + 2] << 16);
const geoOf = (l) => ids[3 * l] | ((ids[3 * l + 2] & 0xff) << 16);
const pairOf = (l) => ids[3 * l + 1] | ((ids[3 * l + 2] >>> 8) << 16);
if (c['sig.flags'].length > 0x10000) throw new Error('rows below hold signal sets in 16 bits');

// Each layout below searches its blocks with its own loop (a scan up to 8 starts, else a binary
// search, as v4-index.ts does): a search shared through a callback would not be inlined by V8
// and would handicap the layouts that use it.

/** Each block of format 3: byte offset, start count, and the byte offset of its leaves. */
function eachBlock(visit) {
  for (let d = 0; d < dir.length; d++) {
    const e = dir[d];
    if (e < 0) {
      const o = e & 0x7fffffff;
      const k = u16(blk, o);
      visit(d, o, k, o + 2 + 2 * k);
    }
  }
}

// --- Layouts -----------------------------------------------------------------
// now: table -> block (leaf id) -> leaf ids (geo row, pair) -> pair (network row, signal set).
function leafNow(a) {
  const e = dir[a >>> shift];
  return e >= 0 ? e : leafInBlock(e & 0x7fffffff, a);
}
/** The leaf answering `a` in the format 3 block at byte `o`. */
function leafInBlock(o, a) {
  const k = u16(blk, o);
  const low = a & mask;
  let j = 0;
  if (k <= 8) while (j < k && u16(blk, o + 2 + 2 * j) <= low) j++;
  else {
    let r = k;
    while (j < r) {
      const m = (j + r) >>> 1;
      if (u16(blk, o + 2 + 2 * m) <= low) j = m + 1;
      else r = m;
    }
  }
  return u24(blk, o + 2 + 2 * k + 3 * j);
}

// leafRows: one 8-byte row per leaf (geo row | signal set low 8 << 24, network row | signal set high 8 << 24).
const rows = new Uint32Array(2 * leafCount);
for (let l = 0; l < leafCount; l++) {
  const p = pairOf(l);
  const s = pairSig[p];
  rows[2 * l] = (geoOf(l) | ((s & 0xff) << 24)) >>> 0;
  rows[2 * l + 1] = (pairNet[p] | ((s >>> 8) << 24)) >>> 0;
}

// inlineRows: blocks in a word array, [k][starts, u16 each, padded to a word][k + 1 rows]; the table entry is the word offset.
let words = 0;
eachBlock((d, o, k) => (words += 1 + ((k + 1) >>> 1) + 2 * (k + 1)));
const inl = new Uint32Array(words);
const inl16 = new Uint16Array(inl.buffer);
const inlDir = new Int32Array(dir.length);
{
  let w = 0;
  for (let d = 0; d < dir.length; d++) if (dir[d] >= 0) inlDir[d] = dir[d];
  eachBlock((d, o, k, leaves) => {
    inlDir[d] = (w | BLOCK) | 0;
    inl[w] = k;
    for (let j = 0; j < k; j++) inl16[2 * (w + 1) + j] = u16(blk, o + 2 + 2 * j);
    const r0 = w + 1 + ((k + 1) >>> 1);
    for (let j = 0; j <= k; j++) {
      const l = u24(blk, leaves + 3 * j);
      inl[r0 + 2 * j] = rows[2 * l];
      inl[r0 + 2 * j + 1] = rows[2 * l + 1];
    }
    w += 1 + ((k + 1) >>> 1) + 2 * (k + 1);
  });
}
/** Word offset in `inl` of the row answering `a` in the block at word `w`. */
function inlineRow(w, a) {
  const k = inl[w];
  const s = 2 * (w + 1);
  const low = a & mask;
  let j = 0;
  if (k <= 8) while (j < k && inl16[s + j] <= low) j++;
  else {
    let r = k;
    while (j < r) {
      const m = (j + r) >>> 1;
      if (inl16[s + m] <= low) j = m + 1;
      else r = m;
    }
  }
  return w + 1 + ((k + 1) >>> 1) + 2 * j;
}

// wideTable: 8-byte table entries; a bucket held by one range holds its row, else (0, BLOCK | word offset in inl).
// wideTableLeafBlocks: the same table, but a block entry holds the byte offset of format 3's block.
function wideTable(blockOffset) {
  const t = new Uint32Array(2 * dir.length);
  for (let d = 0; d < dir.length; d++) {
    const e = dir[d];
    if (e >= 0) {
      if (rows[2 * e + 1] >= BLOCK) throw new Error('a row uses the block bit');
      t[2 * d] = rows[2 * e];
      t[2 * d + 1] = rows[2 * e + 1];
    } else t[2 * d + 1] = (BLOCK | blockOffset(d)) >>> 0;
  }
  return t;
}
const wide = wideTable((d) => inlDir[d] & 0x7fffffff);
const wideLeaf = wideTable((d) => dir[d] & 0x7fffffff);

// inlinePairs: blocks of k + 1 8-byte segments (start | geo low 16 << 16, geo high 8 | pair << 8); segment 0's start holds k.
let segments = 0;
eachBlock((d, o, k) => (segments += k + 1));
const seg = new Uint32Array(2 * segments);
const segDir = new Int32Array(dir.length);
{
  let q = 0;
  for (let d = 0; d < dir.length; d++) if (dir[d] >= 0) segDir[d] = dir[d];
  eachBlock((d, o, k, leaves) => {
    segDir[d] = (q | BLOCK) | 0;
    for (let j = 0; j <= k; j++) {
      const l = u24(blk, leaves + 3 * j);
      const g = geoOf(l);
      seg[2 * (q + j)] = ((j === 0 ? k : u16(blk, o + 2 * j)) | ((g & 0xffff) << 16)) >>> 0;
      seg[2 * (q + j) + 1] = ((g >>> 16) | (pairOf(l) << 8)) >>> 0;
    }
    q += k + 1;
  });
}

// interleaved: format 3's blocks with each start next to its leaf, [k u16][leaf 0 u24]([start j u16][leaf j u24])*k,
// so that the scan's last line read holds the answer; aligned: the same, but a block that would cross a
// 64-byte line while fitting in one starts on the next line.
function interleaved(aligned) {
  const b = new Uint8Array(2 * blk.length);
  const table = new Int32Array(dir.length);
  let w = 0;
  for (let d = 0; d < dir.length; d++) if (dir[d] >= 0) table[d] = dir[d];
  eachBlock((d, o, k, leaves) => {
    const size = 5 + 5 * k;
    if (aligned && size <= 64 && (w & 63) + size > 64) w = (w + 63) & ~63;
    table[d] = (w | BLOCK) | 0;
    b[w] = k & 0xff;
    b[w + 1] = k >>> 8;
    for (let j = 0; j <= k; j++) {
      const at = w + 2 + 5 * j;
      if (j > 0) {
        b[at - 2] = blk[o + 2 * j];
        b[at - 1] = blk[o + 2 * j + 1];
      }
      b.set(blk.subarray(leaves + 3 * j, leaves + 3 * j + 3), at);
    }
    w += size;
  });
  const bytes = b.slice(0, w);
  const leaf = (a) => {
    const e = table[a >>> shift];
    if (e >= 0) return e;
    const o = e & 0x7fffffff;
    const k = u16(bytes, o);
    const low = a & mask;
    let j = 0; // start j + 1 is at o + 5 (j + 1)
    if (k <= 8) while (j < k && u16(bytes, o + 5 * (j + 1)) <= low) j++;
    else {
      let r = k;
      while (j < r) {
        const m = (j + r) >>> 1;
        if (u16(bytes, o + 5 * (m + 1)) <= low) j = m + 1;
        else r = m;
      }
    }
    return u24(bytes, o + 2 + 5 * j);
  };
  return { leaf, bytes: bytes.byteLength };
}
const raws = { now: { leaf: leafNow, bytes: blk.byteLength }, interleaved: interleaved(false), 'interleaved, aligned': interleaved(true) };

// --- The part caches and the result, as intel.ts makes them ------------------
const geoParts = Array.from({ length: c['geo.country_code'].length }, (_, i) => Object.freeze({ country: 'C', country_code: 'CC', region: null, city: `c${i}`, latitude: 1, longitude: 2, timezone: 'Z' }));
const netParts = Array.from({ length: c['net.asn'].length }, (_, i) => Object.freeze({ asn: i, as_org: 'O', is_announced: true, is_bogon: false, rpki: 'unknown', allocation_date: null, allocation_age_days: null, registration_country: null }));
const sigParts = Array.from({ length: c['sig.flags'].length }, (_, i) => Object.freeze({ signals: Object.freeze({ i }), risk: Object.freeze({ i }) }));
const evidenceParts = Array.from({ length: 2 * c['sig.flags'].length }, (_, i) => Object.freeze({ i }));
function result(geo, net, sig, ip) {
  const s = sigParts[sig];
  const inferred = (netFlags[net] & 4) !== 0 ? 1 : 0;
  return { ip, version: 4, geo: geoParts[geo], network: netParts[net], signals: s.signals, evidence: evidenceParts[2 * sig + inferred], risk: s.risk, attribution: 'a' };
}
const fromRow = (w0, w1, ip) => result(w0 & 0xffffff, w1 & 0xffffff, (w0 >>> 24) | ((w1 >>> 24) << 8), ip);

const chains = {
  now(a, ip) {
    const l = leafNow(a);
    const p = pairOf(l);
    return result(geoOf(l), pairNet[p], pairSig[p], ip);
  },
  leafRows(a, ip) {
    const l = leafNow(a);
    return fromRow(rows[2 * l], rows[2 * l + 1], ip);
  },
  inlinePairs(a, ip) {
    const e = segDir[a >>> shift];
    if (e >= 0) {
      const p = pairOf(e);
      return result(geoOf(e), pairNet[p], pairSig[p], ip);
    }
    const q = e & 0x7fffffff;
    const k = seg[2 * q] & 0xffff;
    const low = a & mask;
    let j = 0; // segments 1..k hold the starts
    if (k <= 8) while (j < k && (seg[2 * (q + j + 1)] & 0xffff) <= low) j++;
    else {
      let r = k;
      while (j < r) {
        const m = (j + r) >>> 1;
        if ((seg[2 * (q + m + 1)] & 0xffff) <= low) j = m + 1;
        else r = m;
      }
    }
    const w0 = seg[2 * (q + j)];
    const w1 = seg[2 * (q + j) + 1];
    const p = w1 >>> 8;
    return result((w0 >>> 16) | ((w1 & 0xff) << 16), pairNet[p], pairSig[p], ip);
  },
  inlineRows(a, ip) {
    const e = inlDir[a >>> shift];
    if (e >= 0) return fromRow(rows[2 * e], rows[2 * e + 1], ip);
    const r = inlineRow(e & 0x7fffffff, a);
    return fromRow(inl[r], inl[r + 1], ip);
  },
  wideTableLeafBlocks(a, ip) {
    const d = 2 * (a >>> shift);
    const w1 = wideLeaf[d + 1];
    if (w1 < BLOCK) return fromRow(wideLeaf[d], w1, ip);
    const l = leafInBlock(w1 & 0x7fffffff, a);
    return fromRow(rows[2 * l], rows[2 * l + 1], ip);
  },
  wideTable(a, ip) {
    const d = 2 * (a >>> shift);
    const w1 = wide[d + 1];
    if (w1 < BLOCK) return fromRow(wide[d], w1, ip);
    const r = inlineRow(w1 & 0x7fffffff, a);
    return fromRow(inl[r], inl[r + 1], ip);
  },
};

const N = 1_000_000;
const addrs = randomPublicV4(N, 7);
const orders = [0, 1, 2].map((s) => shuffled(N, 100 + s));
for (let i = 0; i < N; i++) {
  for (const [name, { leaf }] of Object.entries(raws)) if (leaf(addrs[i]) !== leafNow(addrs[i])) throw new Error(`raw ${name} answers ${addrs[i]} differently`);
  const want = chains.now(addrs[i], '');
  for (const [name, f] of Object.entries(chains)) {
    const got = f(addrs[i], '');
    if (got.geo !== want.geo || got.network !== want.network || got.signals !== want.signals || got.evidence !== want.evidence) throw new Error(`${name} answers ${addrs[i]} differently`);
  }
}
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
console.log(`snapshot ${snapshot}, load ${load()}`);
console.log(
  `memory: table ${mb(dir.byteLength)}, blocks ${mb(blk.byteLength)}, leaf ids ${mb(ids.byteLength)}, pairs ${mb(pairNet.byteLength + pairSig.byteLength)}; ` +
    `leaf rows ${mb(rows.byteLength)}, inline-row blocks ${mb(inl.byteLength)}, inline-pair blocks ${mb(seg.byteLength)}, wide table ${mb(wide.byteLength)}`,
);
console.log(`raw layouts: ${Object.entries(raws).map(([name, x]) => `${name} ${mb(x.bytes)}`).join(', ')}`);
const fns = {};
for (const [name, { leaf }] of Object.entries(raws)) fns[`raw ${name}`] = (i, o) => leaf(addrs[orders[o][i]]);
for (const [name, f] of Object.entries(chains)) fns[`chain ${name}`] = (i, o) => f(addrs[orders[o][i]], 'x');
const r = rates(fns, N, { rounds: Number(values.rounds), rotate: true });
for (const [name, v] of Object.entries(r)) {
  const base = r[name.startsWith('raw') ? 'raw now' : 'chain now'];
  console.log(`${name.padEnd(26)} ${(1e9 / v).toFixed(0).padStart(5)} ns  ${(v / base).toFixed(2)}x`);
}
