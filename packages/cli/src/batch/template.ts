/**
 * A compiled row layout for `batch`: the serializer's precomputation.
 *
 * The trick: core's results share frozen sub-objects (geo, network, signals,
 * evidence, risk) between every address of the same leaf, and every part of a
 * row except the address and version depends on exactly one of them. A row is
 * compiled once per (format, output, fields) into segments:
 *
 *   ip       literal prefix + the address bytes (canonical: needs no escaping)
 *   version  literal prefix + `4` or `6`, both pre-encoded
 *   group    literal prefix + the text of some fields of ONE sub-object,
 *            rendered and UTF-8 encoded once per object identity (WeakMap)
 *
 * plus a literal tail, so writing a row is a handful of byte copies — no
 * JSON.stringify, no per-row field walk. For the thirdparty shape each field
 * is known to derive from one sub-object (city/region/country/loc/timezone
 * from geo, org from network, privacy from signals); tests compare every
 * layout with JSON.stringify(check(...)).
 *
 * @module
 */
import { TextEncoder } from 'node:util';
import { toThirdParty, type CheckResult, type ResultFormat } from '@ipintel/core';
import { csvCell, jsonValue } from './cells.js';
import { allColumns, ERROR_COLUMNS, GEO, NETWORK } from './columns.js';

export type OutputKind = 'ndjson' | 'csv' | 'json';

export interface RenderOptions {
  readonly format: ResultFormat;
  readonly output: OutputKind;
  /** Selected flattened columns; undefined = whole results (JSON) / all columns (CSV). */
  readonly fields?: readonly string[] | undefined;
}

export type Group = 'geo' | 'network' | 'signals' | 'evidence' | 'risk' | 'attribution';

export type Segment =
  | { readonly kind: 'ip'; readonly pre: Uint8Array }
  | { readonly kind: 'version'; readonly v4: Uint8Array; readonly v6: Uint8Array }
  | {
      readonly kind: 'group';
      readonly group: Group;
      /** The segment's encoded bytes, cached per sub-object. */
      readonly bytes: (r: CheckResult) => Uint8Array;
      /** The segment's text, rendered afresh (for callers with their own cache). */
      readonly text: (r: CheckResult) => string;
      /**
       * The same text as literals and the cells (CSV) or values (JSON) of
       * native columns (`geo.city`), for callers that write them from the
       * snapshot's records (records.ts); native results only.
       */
      readonly layout?: readonly (string | { readonly column: string })[];
    };

/**
 * Before compilation: literals, the two per-row values, and per-group text.
 * `text` reads the projected result (the native result itself, or its
 * thirdparty shape), which is built once per segment render.
 */
type Item = { lit: string } | { ip: true } | { version: true } | { group: Group; text: (p: object) => string; column?: string };

/** A group segment's fields as literals and columns (see Segment's `layout`). */
type Layout = (string | { readonly column: string })[];

const encoder = new TextEncoder();
const TP_GROUP: Readonly<Record<string, Group>> = {
  city: 'geo', region: 'geo', country: 'geo', loc: 'geo', timezone: 'geo', org: 'network', bogon: 'network', anycast: 'signals', privacy: 'signals',
};
const TP_KEYS = ['city', 'region', 'country', 'loc', 'org', 'timezone', 'bogon', 'anycast'] as const;

function groupOf(format: ResultFormat, column: string): Group {
  const head = column.includes('.') ? column.slice(0, column.indexOf('.')) : column;
  return format === 'native' ? (head as Group) : TP_GROUP[head]!;
}

/** A getter for a dotted column name, split once (cache misses call it, not every row). */
function getter(column: string): (p: object) => unknown {
  const path = column.split('.');
  if (path.length === 1) return (p) => (p as Record<string, unknown>)[path[0]!];
  const [a, b] = path as [string, string];
  return (p) => ((p as Record<string, Record<string, unknown> | undefined>)[a] ?? {})[b];
}

/** Items of a whole nested result (JSON outputs without --fields). */
function nestedItems(format: ResultFormat): Item[] {
  if (format === 'native') {
    const items: Item[] = [{ lit: '{"ip":"' }, { ip: true }, { lit: '","version":' }, { version: true }];
    for (const g of ['geo', 'network', 'signals', 'evidence', 'risk', 'attribution'] as const) {
      if (g === 'geo' || g === 'network') {
        // Field by field (JSON.stringify's text of the object, whose keys come in this order), so
        // that each value is a column records.ts can write from the snapshot's records.
        const keys: readonly string[] = g === 'geo' ? GEO : NETWORK;
        keys.forEach((k, i) => {
          const column = `${g}.${k}`;
          const get = getter(column);
          items.push({ lit: `${i === 0 ? `,"${g}":{` : ','}"${k}":` }, { group: g, text: (r) => jsonValue(get(r)), column });
        });
        items.push({ lit: '}' });
      } else items.push({ lit: `,"${g}":` }, { group: g, text: (r) => JSON.stringify((r as CheckResult)[g]) });
    }
    items.push({ lit: '}' });
    return items;
  }
  // Thirdparty: absent fields are omitted, so each field carries its own leading comma.
  const items: Item[] = [{ lit: '{"ip":"' }, { ip: true }, { lit: '"' }];
  for (const k of [...TP_KEYS, 'privacy']) {
    items.push({ group: TP_GROUP[k]!, text: (tp) => { const v = (tp as Record<string, unknown>)[k]; return v === undefined ? '' : `,"${k}":${JSON.stringify(v)}`; } });
  }
  items.push({ lit: '}' });
  return items;
}

/** Items of a flat row: CSV cells, or a JSON object keyed by column name. */
function flatItems(format: ResultFormat, csv: boolean, columns: readonly string[]): Item[] {
  const items: Item[] = [];
  columns.forEach((c, i) => {
    items.push({ lit: csv ? (i === 0 ? '' : ',') : `${i === 0 ? '{' : ','}${JSON.stringify(c)}:` });
    if (c === 'ip') items.push(...(csv ? [{ ip: true } as const] : [{ lit: '"' }, { ip: true } as const, { lit: '"' }]));
    else if (c === 'version') items.push({ version: true });
    else if (c.startsWith('error.')) items.push({ lit: csv ? '' : 'null' });
    else {
      const cell = csv ? csvCell : jsonValue;
      const get = getter(c);
      items.push({ group: groupOf(format, c), text: (p) => cell(get(p)), ...(format === 'native' ? { column: c } : {}) });
    }
  });
  if (!csv) items.push({ lit: '}' });
  return items;
}

/**
 * Where encoded segments live: views into 1 MiB chunks rather than one
 * allocation each. A world snapshot yields ~10^5 distinct geo and network
 * objects; separate buffers cost ~100 MB more and scatter the bytes.
 */
export class Arena {
  private chunk = new Uint8Array(0);
  private pos = 0;

  store(text: string): Uint8Array {
    const max = text.length * 3;
    if (this.pos + max > this.chunk.length) {
      this.chunk = new Uint8Array(Math.max(ARENA_CHUNK, max));
      this.pos = 0;
    }
    const start = this.pos;
    this.pos += encoder.encodeInto(text, this.chunk.subarray(start)).written;
    return this.chunk.subarray(start, this.pos);
  }
}
const ARENA_CHUNK = 1 << 20;

/** Identity cache of one group segment: object (or attribution string) -> encoded bytes. */
function groupSegment(format: ResultFormat, group: Group, pre: string, texts: ((p: object) => string)[], arena: Arena, layout: Layout | null): Segment {
  const byObject = new WeakMap<object, Uint8Array>();
  const byString = new Map<string, Uint8Array>();
  const text = (r: CheckResult): string => {
    const p = format === 'native' ? r : toThirdParty(r);
    let out = pre;
    for (const t of texts) out += t(p);
    return out;
  };
  const render = (r: CheckResult): Uint8Array => arena.store(text(r));
  const described = layout === null ? {} : { layout: [pre, ...layout] };
  if (group === 'attribution') {
    return { kind: 'group', group, text, ...described, bytes: (r) => { let b = byString.get(r.attribution); if (b === undefined) byString.set(r.attribution, (b = render(r))); return b; } };
  }
  return { kind: 'group', group, text, ...described, bytes: (r) => { const key = r[group]; let b = byObject.get(key); if (b === undefined) byObject.set(key, (b = render(r))); return b; } };
}

export class RowTemplate {
  readonly output: OutputKind;
  /** Segments in row order; at most one `ip` and one `version` segment. */
  readonly segments: readonly Segment[];
  /** Literal after the last segment, including the row terminator (LF, or nothing for json). */
  readonly tail: Uint8Array;
  /** Flat columns (CSV, or JSON with --fields); null for nested JSON. */
  readonly columns: readonly string[] | null;

  constructor(opts: RenderOptions) {
    this.output = opts.output;
    let cols: readonly string[] | null = opts.fields ?? null;
    // CSV always carries the error columns: a row for a bad line must say so.
    if (opts.output === 'csv') cols = [...(cols ?? allColumns(opts.format)).filter((c) => !c.startsWith('error.')), ...ERROR_COLUMNS];
    this.columns = cols;
    const items = cols === null ? nestedItems(opts.format) : flatItems(opts.format, opts.output === 'csv', cols);
    const segments: Segment[] = [];
    const arena = new Arena();
    let lit = '';
    for (let i = 0; i < items.length; i++) {
      const it = items[i]!;
      if ('lit' in it) lit += it.lit;
      else if ('ip' in it) {
        segments.push({ kind: 'ip', pre: encoder.encode(lit) });
        lit = '';
      } else if ('version' in it) {
        segments.push({ kind: 'version', v4: encoder.encode(`${lit}4`), v6: encoder.encode(`${lit}6`) });
        lit = '';
      } else {
        // Fold following fields of the same group (and literals between them) into one segment.
        const texts = [it.text];
        // The layout, while every field has a column (native results).
        let layout: Layout | null = it.column === undefined ? null : [{ column: it.column }];
        let j = i + 1;
        for (;;) {
          let k = j;
          let between = '';
          while (k < items.length && 'lit' in items[k]!) between += (items[k++] as { lit: string }).lit;
          const nx = items[k];
          if (nx === undefined || !('group' in nx) || nx.group !== it.group) break;
          if (between !== '') texts.push(() => between);
          texts.push(nx.text);
          if (layout !== null && nx.column !== undefined) layout.push(...(between === '' ? [] : [between]), { column: nx.column });
          else layout = null;
          j = k + 1;
        }
        segments.push(groupSegment(opts.format, it.group, lit, texts, arena, layout));
        lit = '';
        i = j - 1;
      }
    }
    this.segments = segments;
    this.tail = encoder.encode(opts.output === 'json' ? lit : `${lit}\n`);
  }

  /** The CSV header line (with its LF), or '' for JSON outputs. */
  header(): string {
    return this.output === 'csv' ? `${this.columns!.map(csvCell).join(',')}\n` : '';
  }

  /** A row (without terminator) for a line that is not an address. */
  errorRow(input: string, code: string, message: string): string {
    const cols = this.columns;
    if (this.output !== 'csv' || cols === null) return JSON.stringify({ ip: input, error: { code, message } });
    return cols
      .map((c) => (c === 'ip' ? csvCell(input) : c === 'error.code' ? csvCell(code) : c === 'error.message' ? csvCell(message) : ''))
      .join(',');
  }
}
