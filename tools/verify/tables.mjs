// Reference tables of verify-build, written without the builder's code: addresses as
// bigints, a longest-prefix table (a hash map per prefix length), a range table
// (binary search), and the geo and ASN CSV readers.
import { parseAddress } from '../../packages/core/dist/index.js';

export const WIDTH = { 4: 32, 6: 128 };
export const toBig = (p) => (p.version === 4 ? BigInt(p.value) : (BigInt(p.words[0]) << 96n) | (BigInt(p.words[1]) << 64n) | (BigInt(p.words[2]) << 32n) | BigInt(p.words[3]));

/** Text of an address (IPv6 in full, uncompressed form; core and mmdb-lib both read it). */
export function toText(version, x) {
  if (version === 4) {
    const n = Number(x);
    return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  }
  const g = [];
  for (let i = 7; i >= 0; i--) g.push(Number((x >> BigInt(i * 16)) & 0xffffn).toString(16));
  return g.join(':');
}

/** Parses an address text to { version, x } (null when not one, or IPv4-mapped). */
export function parseText(text) {
  try {
    const p = parseAddress(text.trim());
    if (p.version === 4 && text.includes(':')) return null; // ::ffff:a.b.c.d in an IPv6 file
    return { version: p.version, x: toBig(p) };
  } catch {
    return null;
  }
}

/** Canonical text of a prefix (RFC 5952 for IPv6), for labels. */
export const prefixText = (version, start, length) => `${parseAddress(toText(version, start)).text}/${length}`;

/**
 * Longest-prefix match, the obvious way: one hash map per prefix length,
 * keyed by the prefix's network bits. The first value added for a given
 * prefix stays (registries are in precedence order, first = most specific).
 */
export class PrefixTable {
  constructor(name) {
    this.name = name;
    this.byLen = { 4: new Map(), 6: new Map() };
    this.lens = { 4: [], 6: [] };
    this.size = 0;
  }
  static key(version, x, length) {
    if (length === 0) return version === 4 ? 0 : 0n;
    const shift = BigInt(WIDTH[version] - length);
    return version === 4 ? Number(x >> shift) : x >> shift;
  }
  add(version, start, length, value) {
    let m = this.byLen[version].get(length);
    if (!m) {
      this.byLen[version].set(length, (m = new Map()));
      this.lens[version] = [...this.byLen[version].keys()].sort((a, b) => b - a);
    }
    const k = PrefixTable.key(version, start, length);
    if (!m.has(k)) {
      m.set(k, value);
      this.size++;
    }
  }
  /** The most specific entry holding the address: { length, value } or null. */
  match(version, x) {
    for (const len of this.lens[version]) {
      const v = this.byLen[version].get(len).get(PrefixTable.key(version, x, len));
      if (v !== undefined) return { length: len, value: v };
    }
    return null;
  }
  has(version, x) {
    return this.match(version, x) !== null;
  }
}

/** Sorted, non-overlapping inclusive ranges; binary search. */
export class RangeTable {
  constructor() {
    this.first = [];
    this.last = [];
    this.value = [];
  }
  push(first, last, value) {
    this.first.push(first);
    this.last.push(last);
    this.value.push(value);
  }
  get length() {
    return this.first.length;
  }
  /** Index of the range holding x, or -1. */
  find(x) {
    let lo = 0;
    let hi = this.first.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.first[mid] <= x) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return at >= 0 && x <= this.last[at] ? at : -1;
  }
  get(x) {
    const i = this.find(x);
    return i < 0 ? null : this.value[i];
  }
}

/** Splits one CSV line (RFC 4180 quoting); null when the quotes do not balance. */
export function csvFields(line) {
  const out = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let s = '';
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) return null;
        s += line.slice(i, q);
        if (line[q + 1] === '"') {
          s += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      out.push(s);
      if (i >= line.length) return out;
      if (line[i] !== ',') return null;
      i++;
    } else {
      const c = line.indexOf(',', i);
      if (c < 0) {
        out.push(line.slice(i));
        return out;
      }
      out.push(line.slice(i, c));
      i = c + 1;
    }
  }
}

export const lines = (text) => text.split(/\r?\n/);

/**
 * ip-location-db ASN CSV (`start,end,asn,org`, inclusive): per family, rows
 * in file order; a row starting inside the previous row starts after its
 * end (dropped when it lies wholly inside); a row starting before the
 * previous one is dropped.
 */
export function readAsnCsv(text, tables) {
  const prev = { 4: null, 6: null };
  let clipped = 0;
  let bad = 0;
  for (const line of lines(text)) {
    if (line === '') continue;
    const c1 = line.indexOf(',');
    const c2 = line.indexOf(',', c1 + 1);
    const c3 = line.indexOf(',', c2 + 1);
    if (c1 < 0 || c2 < 0 || c3 < 0) {
      bad++;
      continue;
    }
    const a = parseText(line.slice(0, c1));
    const b = parseText(line.slice(c1 + 1, c2));
    const asnText = line.slice(c2 + 1, c3);
    let org = line.slice(c3 + 1);
    if (org.startsWith('"')) {
      const f = csvFields(org);
      if (f === null || f.length !== 1) {
        bad++;
        continue;
      }
      org = f[0];
    }
    if (!a || !b || a.version !== b.version || b.x < a.x || !/^\d+$/.test(asnText)) {
      bad++;
      continue;
    }
    let first = a.x;
    const p = prev[a.version];
    if (p) {
      if (first < p.first) {
        bad++;
        continue;
      }
      if (first <= p.last) {
        if (b.x <= p.last) {
          clipped++;
          continue;
        }
        first = p.last + 1n;
        clipped++;
      }
    }
    prev[a.version] = { first, last: b.x };
    const t = tables[a.version];
    t.push(a.version === 4 ? Number(first) : first, a.version === 4 ? Number(b.x) : b.x, { asn: Number(asnText), org });
  }
  return { clipped, bad };
}

/** DB-IP city CSV (ip-location-db form, no header): only lines the builder would accept. */
export function readGeoCsv(text, version) {
  const rows = [];
  for (const line of lines(text)) {
    if (line.trim() === '') continue;
    const f = csvFields(line);
    if (f === null || f.length !== 10) continue;
    const [s, e, cc, state1, , city, , lat, lon] = f.map((x) => x.trim());
    const a = parseText(s);
    const b = parseText(e);
    if (!a || !b || a.version !== version || b.version !== version || a.x > b.x) continue;
    if (cc !== '' && !/^[A-Z]{2}$/.test(cc)) continue;
    if ((lat === '') !== (lon === '')) continue;
    const la = lat === '' ? null : Number(lat);
    const lo = lon === '' ? null : Number(lon);
    if (la !== null && !(Number.isFinite(la) && Number.isFinite(lo) && Math.abs(la) <= 90 && Math.abs(lo) <= 180)) continue;
    rows.push({ first: a.x, last: b.x, rec: { country_code: cc, state1, city, latitude: la ?? undefined, longitude: lo ?? undefined } });
  }
  rows.sort((p, q) => (p.first < q.first ? -1 : p.first > q.first ? 1 : 0)); // stable: file order on ties
  const t = new RangeTable();
  let last = -1n;
  for (const r of rows) {
    if (r.first <= last) continue; // overlaps an earlier line: the builder drops it
    t.push(r.first, r.last, r.rec);
    last = r.last;
  }
  return t;
}
