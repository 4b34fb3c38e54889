/**
 * Record fields as CSV cells or JSON values, written as bytes straight from the columns:
 * the CLI's batch writer renders the geo and network cells of each record it
 * meets this way instead of building the result's frozen objects (tables.ts)
 * and turning their values back into text. A world-sized batch meets ~150,000
 * records, so this is most of a batch's cost (docs/design.md, fourth round).
 *
 * The bytes are those of `csvCell(value)` (result/csv.ts), or of
 * `JSON.stringify(value)` for JSON, UTF-8 encoded, where `value` is the field
 * of the object tables.ts builds for the same row: tests compare them for
 * every row of a snapshot. Strings that are ASCII are copied (CSV: quoted
 * when they hold `"`, `,`, CR or LF; JSON: always quoted, and a string with
 * `"`, a backslash or a control character takes the general way); others go
 * through the same decode and csvCell or JSON.stringify as the objects, so
 * that bytes that are not valid UTF-8 come out as the objects' replacement
 * characters.
 *
 * @module
 */
import { csvCell } from '../result/csv.js';
import { isoDay } from '../clock.js';
import type { Geo, Network } from '../types.js';
import { coordinate, type RecordTables } from './tables.js';
import { NET_ANNOUNCED, NET_BOGON, NULL_DAY, NULL_STRING, RPKI_CODES, routingInferred } from './format.js';
import type { DecodedSnapshot } from './decode.js';

/**
 * Writes one field of record `row` as a CSV cell (or a JSON value) into `out` from `at`;
 * returns where the cell ends, or -1 when `out` has too little room (the
 * caller grows it and calls again). `today` is the UTC day number
 * (network fields: `allocation_age_days`).
 */
export type CellWriter = (row: number, today: number, out: Uint8Array, at: number) => number;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const encoder = new TextEncoder();

/** How a cell is written: CSV (csvCell) or JSON (JSON.stringify). */
export type CellEncoding = 'csv' | 'json';

/** A value as the text of its cell in `as`. */
function cellText(value: unknown, as: CellEncoding): string {
  return as === 'csv' ? csvCell(value) : JSON.stringify(value);
}

/** Text that is all ASCII, written as bytes; -1 when it does not fit. */
function putAscii(s: string, out: Uint8Array, at: number): number {
  if (at + s.length > out.length) return -1;
  for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
  return at + s.length;
}

/** Any text, already a cell, as UTF-8; -1 when it may not fit. */
function putText(s: string, out: Uint8Array, at: number): number {
  if (at + 3 * s.length > out.length) return -1;
  return at + encoder.encodeInto(s, out.subarray(at)).written;
}

export class RecordCells {
  private readonly c: DecodedSnapshot['columns'];
  private readonly countryNames: Readonly<Record<string, string>>;
  /** Text of string ids: the record tables' decoder (and its cache), which the objects use too. */
  private readonly strings: Pick<RecordTables, 'str' | 'str16'>;

  constructor(decoded: DecodedSnapshot, strings: Pick<RecordTables, 'str' | 'str16'>) {
    this.c = decoded.columns;
    this.countryNames = decoded.meta.country_names;
    this.strings = strings;
  }

  /** Whether network row `net`'s routing label is `inferred` (its evidence's `routing`). */
  routingInferred(net: number): boolean {
    return routingInferred(this.c['net.flags'], net);
  }

  /**
   * Reads what rendering geo rows (`kind` 0) or network rows (1)
   * `rows[0, n)` will read: every column at each row, then each string's
   * offsets, then its first bytes, one stage over all rows at a time. The
   * reads of different rows do not depend on each other, so their cache
   * misses overlap here, where inside one render each waits for the last
   * (docs/design.md, seventh round). `ids` is scratch of at least 2n.
   * Returns a sum of what it read, so that no read is dropped.
   */
  warm(kind: 0 | 1, rows: Uint32Array, n: number, ids: Uint32Array): number {
    const c = this.c;
    let t = 0;
    if (kind === 0) {
      const cc = c['geo.country_code'];
      const tz = c['geo.timezone'];
      const region = c['geo.region'];
      const city = c['geo.city'];
      const lat = c['geo.latitude'];
      const lon = c['geo.longitude'];
      for (let i = 0; i < n; i++) {
        const r = rows[i]!;
        t += cc[r]! + tz[r]! + (lat[r]! > lon[r]! ? 1 : 0);
        ids[2 * i] = region[r]!;
        ids[2 * i + 1] = city[r]!;
      }
    } else {
      const asn = c['net.asn'];
      const org = c['net.as_org'];
      const flags = c['net.flags'];
      const rpki = c['net.rpki'];
      const day = c['net.allocation_day'];
      const reg = c['net.registration_country'];
      for (let i = 0; i < n; i++) {
        const r = rows[i]!;
        t += asn[r]! + flags[r]! + rpki[r]! + day[r]!;
        ids[2 * i] = org[r]!;
        ids[2 * i + 1] = reg[r]!;
      }
    }
    const o = c['str.offsets'];
    const bytes = c['str.bytes'];
    const m = 2 * n;
    for (let i = 0; i < m; i++) {
      const id = ids[i]!;
      ids[i] = id === NULL_STRING || id + 1 >= o.length ? 0 : o[id]!;
    }
    for (let i = 0; i < m; i++) t += bytes[ids[i]!] ?? 0;
    return t;
  }

  /** A writer of the geo field `field` as a CSV cell or (`as` 'json') a JSON value, or null for a field it does not know. */
  geo(field: keyof Geo, as: CellEncoding = 'csv'): CellWriter | null {
    const c = this.c;
    const str = this.stringCell(as);
    switch (field) {
      case 'country':
        return this.smallCells(c['geo.country_code'], as, (id) => {
          const code = this.strings.str16(id);
          return code === null ? null : (this.countryNames[code] ?? null);
        });
      case 'country_code':
        return this.smallCells(c['geo.country_code'], as, (id) => this.strings.str16(id));
      case 'timezone':
        return this.smallCells(c['geo.timezone'], as, (id) => this.strings.str16(id));
      case 'region':
        return (row, _today, out, at) => str(c['geo.region'][row]!, out, at);
      case 'city':
        return (row, _today, out, at) => str(c['geo.city'][row]!, out, at);
      case 'latitude':
        return (row, _today, out, at) => coordinateText(c['geo.latitude'][row]!, as, out, at);
      case 'longitude':
        return (row, _today, out, at) => coordinateText(c['geo.longitude'][row]!, as, out, at);
      default:
        return null;
    }
  }

  /** A writer of the network field `field` as a CSV cell or (`as` 'json') a JSON value, or null for a field it does not know. */
  network(field: keyof Network, as: CellEncoding = 'csv'): CellWriter | null {
    const c = this.c;
    const str = this.stringCell(as);
    const none = as === 'csv' ? '' : 'null';
    switch (field) {
      case 'asn':
        return (row, _today, out, at) => putAscii(String(c['net.asn'][row]!), out, at);
      case 'as_org':
        // The object holds '' for a missing organisation: a quoted empty cell, an empty JSON string.
        return (row, _today, out, at) => {
          const id = c['net.as_org'][row]!;
          return id === NULL_STRING ? putAscii('""', out, at) : str(id, out, at);
        };
      case 'is_announced':
        return (row, _today, out, at) => putAscii((c['net.flags'][row]! & NET_ANNOUNCED) !== 0 ? 'true' : 'false', out, at);
      case 'is_bogon':
        return (row, _today, out, at) => putAscii((c['net.flags'][row]! & NET_BOGON) !== 0 ? 'true' : 'false', out, at);
      case 'rpki': {
        // Five codes: their cells made once.
        const made = RPKI_CODES.map((code) => cellText(code, as));
        return (row, _today, out, at) => putAscii(made[c['net.rpki'][row]!] ?? none, out, at);
      }
      case 'allocation_date':
        return (row, _today, out, at) => {
          const day = c['net.allocation_day'][row]!;
          return day === NULL_DAY ? putAscii(none, out, at) : putText(cellText(isoDay(day), as), out, at);
        };
      case 'allocation_age_days':
        return (row, today, out, at) => {
          const day = c['net.allocation_day'][row]!;
          return day === NULL_DAY ? putAscii(none, out, at) : putAscii(String(Math.max(0, today - day)), out, at);
        };
      case 'registration_country':
        return (row, _today, out, at) => str(c['net.registration_country'][row]!, out, at);
      default:
        return null;
    }
  }

  /**
   * A writer of a u16 string column's cells (few distinct values: country
   * codes and names, time zones), each made once from `value` of its id.
   */
  private smallCells(column: Uint16Array, as: CellEncoding, value: (id: number) => string | null): CellWriter {
    const made: (Uint8Array | undefined)[] = [];
    return (row, _today, out, at) => {
      const id = column[row]!;
      let b = made[id];
      if (b === undefined) made[id] = b = encoder.encode(cellText(value(id), as));
      if (at + b.length > out.length) return -1;
      out.set(b, at);
      return at + b.length;
    };
  }

  /** The writer of a string id's cell in `as` (strCell or strJson). */
  private stringCell(as: CellEncoding): (id: number, out: Uint8Array, at: number) => number {
    return as === 'csv' ? (id, out, at) => this.strCell(id, out, at) : (id, out, at) => this.strJson(id, out, at);
  }

  /** The JSON value of string `id` (NULL_STRING: null): ASCII with nothing to escape is copied between quotes. */
  private strJson(id: number, out: Uint8Array, at: number): number {
    if (id === NULL_STRING) return putAscii('null', out, at);
    const o = this.c['str.offsets'];
    const bytes = this.c['str.bytes'];
    const s = o[id]!;
    const e = o[id + 1]!;
    for (let i = s; i < e; i++) {
      const b = bytes[i]!;
      if (b >= 0x80 || b < 0x20 || b === QUOTE || b === BACKSLASH) return putText(JSON.stringify(this.strings.str(id)), out, at);
    }
    if (at + (e - s) + 2 > out.length) return -1;
    let p = at;
    out[p++] = QUOTE;
    for (let i = s; i < e; i++) out[p++] = bytes[i]!;
    out[p++] = QUOTE;
    return p;
  }

  /** The cell of string `id` (NULL_STRING: an empty cell). */
  private strCell(id: number, out: Uint8Array, at: number): number {
    if (id === NULL_STRING) return at;
    const o = this.c['str.offsets'];
    const bytes = this.c['str.bytes'];
    const s = o[id]!;
    const e = o[id + 1]!;
    if (s === e) return putAscii('""', out, at);
    let quotes = 0;
    let special = false;
    for (let i = s; i < e; i++) {
      const b = bytes[i]!;
      if (b >= 0x80) return putText(csvCell(this.strings.str(id)), out, at);
      if (b === QUOTE) quotes++;
      else if (b === 0x2c || b === 0x0d || b === 0x0a) special = true;
    }
    const wrap = quotes > 0 || special;
    if (at + (e - s) + quotes + (wrap ? 2 : 0) > out.length) return -1;
    let p = at;
    if (wrap) out[p++] = QUOTE;
    for (let i = s; i < e; i++) {
      const b = bytes[i]!;
      out[p++] = b;
      if (b === QUOTE) out[p++] = QUOTE;
    }
    if (wrap) out[p++] = QUOTE;
    return p;
  }
}

/**
 * A stored float32 coordinate as its cell: the text of the object's value
 * (`coordinate(x)`, null an empty cell), written from the integer count of
 * 1e-4 degrees. `String(n / 1e4)` is that decimal with trailing zeros
 * dropped: it has at most 9 significant digits, so no shorter decimal
 * rounds to the same double. Number to text in V8 was ~1/3 of a geo
 * row's render; anything outside ±1e9 (not a coordinate) takes `String`.
 */
export function coordinateCell(x: number, out: Uint8Array, at: number): number {
  return coordinateText(x, 'csv', out, at);
}

/**
 * {@link coordinateCell} as a CSV cell or a JSON value. Outside ±1e9 (no
 * coordinate: a crafted or broken file) the value's own cell text: JSON
 * writes null for an infinity, as JSON.stringify does.
 */
function coordinateText(x: number, as: CellEncoding, out: Uint8Array, at: number): number {
  const n = Math.round(x * 1e4);
  if (!(n > -1e9 && n < 1e9)) return putAscii(cellText(coordinate(x), as), out, at);
  if (at + 16 > out.length) return -1;
  let p = at;
  let m = n;
  if (m < 0) {
    out[p++] = 0x2d;
    m = -m;
  }
  const whole = Math.floor(m / 10_000);
  let frac = m - whole * 10_000;
  p = putUint(whole, out, p);
  if (frac !== 0) {
    out[p++] = 0x2e;
    let digits = 4;
    while (frac % 10 === 0) {
      frac /= 10;
      digits--;
    }
    p = putDigits(frac, digits, out, p);
  }
  return p;
}

/** A non-negative integer below 1e9 in decimal at `at` (room checked by the caller); returns where it ends. */
function putUint(v: number, out: Uint8Array, at: number): number {
  let digits = 1;
  for (let t = v; t >= 10; t = Math.floor(t / 10)) digits++;
  return putDigits(v, digits, out, at);
}

/** The last `digits` decimal digits of `v`, zero-padded (a fraction's leading zeros), at `at`; returns where they end. */
function putDigits(v: number, digits: number, out: Uint8Array, at: number): number {
  for (let i = at + digits - 1; i >= at; i--) {
    out[i] = 0x30 + (v % 10);
    v = Math.floor(v / 10);
  }
  return at + digits;
}
