/**
 * Writes the explain sidecar (format.ts) from the combiner's inputs: each
 * role's prefixes sorted by start and length, an identical prefix given
 * twice kept once (the later one, as the combiner keeps it), with the source
 * row of each and its value interned in a table. For the builder (through
 * `@ipintel/core/writer`); nothing here runs when a snapshot is read.
 *
 * @module
 */
import { deflateSync } from 'fflate';
import { crc32 } from '../snapshot/checksum.js';
import { SECTION_KINDS, SIDECAR_MAGIC, SIDECAR_PRELUDE, SIDECAR_VERSION, type SectionKind, type SidecarAsnRole, type SidecarHeader, type SidecarPrefixRole } from './format.js';
import { ByteWriter } from './varint.js';

/** Consecutive entries that came from one source row. */
export interface SourceRun {
  readonly source: number;
  readonly count: number;
}

export interface PrefixSectionInput<V> {
  readonly role: SidecarPrefixRole;
  /** Every prefix of the role, in the combiner's order (entries of the other family are skipped). */
  readonly prefixes: readonly { readonly version: 4 | 6; readonly start: bigint; readonly length: number; readonly value: V }[];
  /** Source rows over `prefixes`, in order. */
  readonly runs: readonly SourceRun[];
  /** The value stored (JSON; null for presence roles), of each prefix kept. */
  readonly value: (v: V, prefix: { readonly version: 4 | 6; readonly start: bigint; readonly length: number }) => unknown;
}

export interface IntervalSectionInput<V> {
  readonly role: string;
  readonly version: 4 | 6;
  /** `interval`: every interval with its value; `span`: one interval per source, no value. */
  readonly kind: 'interval' | 'span';
  /** Sorted, disjoint. */
  readonly intervals: readonly { readonly first: bigint; readonly last: bigint; readonly value: V }[];
  readonly runs: readonly SourceRun[];
  readonly value: (v: V) => unknown;
}

export interface AsnSectionInput {
  readonly role: SidecarAsnRole;
  /** [asn, stored value, source row]. */
  readonly entries: Iterable<readonly [number, unknown, number]>;
}

export interface SidecarInput {
  readonly snapshot: SidecarHeader['snapshot'];
  readonly roas_source: SidecarHeader['roas_source'];
  readonly prefixes: readonly PrefixSectionInput<never>[];
  readonly intervals: readonly IntervalSectionInput<never>[];
  readonly asns: readonly AsnSectionInput[];
}

/** Source row per entry, from runs. */
function expandRuns(runs: readonly SourceRun[], n: number): Uint32Array {
  const out = new Uint32Array(n);
  let i = 0;
  for (const r of runs) {
    out.fill(r.source, i, Math.min(n, i + r.count));
    i += r.count;
  }
  if (i !== n) throw new RangeError(`source runs cover ${i} entries, the role has ${n}`);
  return out;
}

/**
 * A role's value table, shared by its sections (IPv4, then IPv6): each
 * section stores only the values it adds (`fresh`), the reader appends them
 * to what the role's earlier sections stored, so a value both families use
 * is stored once.
 */
class Values {
  readonly table: unknown[] = [];
  private written = 0;
  private readonly ids = new Map<string, number>();
  /** The values added since the last call. */
  fresh(): unknown[] {
    const out = this.table.slice(this.written);
    this.written = this.table.length;
    return out;
  }
  id(v: unknown): number {
    const key = v === null ? 'null' : JSON.stringify(v);
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.table.length;
      this.table.push(v ?? null);
      this.ids.set(key, id);
    }
    return id;
  }
}

function sectionHead(w: ByteWriter, role: string, kind: SectionKind, version: number, count: number, values: Values | null): void {
  w.text(role);
  w.byte(SECTION_KINDS.indexOf(kind));
  w.byte(version);
  w.uint(count);
  w.text(JSON.stringify(values?.fresh() ?? []));
}

function writePrefixes(w: ByteWriter, s: PrefixSectionInput<unknown>, version: 4 | 6, source: Uint32Array, values: Values): void {
  // 1. This family's entries sorted by (start, length, position); of equal prefixes the last position wins.
  const idx: number[] = [];
  for (let i = 0; i < s.prefixes.length; i++) if (s.prefixes[i]!.version === version) idx.push(i);
  const p = s.prefixes;
  idx.sort((a, b) => {
    const x = p[a]!;
    const y = p[b]!;
    return x.start < y.start ? -1 : x.start > y.start ? 1 : x.length - y.length || a - b;
  });
  const kept = idx.filter((i, k) => k + 1 === idx.length || p[idx[k + 1]!]!.start !== p[i]!.start || p[idx[k + 1]!]!.length !== p[i]!.length);
  const ids = kept.map((i) => values.id(s.value(p[i]!.value, p[i]!)));
  sectionHead(w, s.role, 'prefix', version, kept.length, values);
  // 2. Columns: start deltas, lengths, source rows, value ids.
  let prev = 0n;
  for (const i of kept) {
    w.big(p[i]!.start - prev);
    prev = p[i]!.start;
  }
  for (const i of kept) w.byte(p[i]!.length);
  for (const i of kept) w.uint(source[i]!);
  for (const id of ids) w.uint(id);
}

function writeIntervals(w: ByteWriter, s: IntervalSectionInput<unknown>, shared: Values): void {
  const source = expandRuns(s.runs, s.intervals.length);
  const values = s.kind === 'interval' ? shared : null;
  const ids = values === null ? [] : s.intervals.map((iv) => values.id(s.value(iv.value)));
  sectionHead(w, s.role, s.kind, s.version, s.intervals.length, values);
  let next = 0n;
  for (const iv of s.intervals) {
    if (iv.first < next || iv.last < iv.first) throw new RangeError(`${s.role} intervals must be sorted and disjoint (at ${iv.first})`);
    w.big(iv.first - next);
    w.big(iv.last - iv.first);
    next = iv.last + 1n;
  }
  for (let i = 0; i < s.intervals.length; i++) w.uint(source[i]!);
  for (const id of ids) w.uint(id);
}

function writeAsns(w: ByteWriter, s: AsnSectionInput): void {
  const entries = [...s.entries].sort((a, b) => a[0] - b[0] || a[2] - b[2]);
  const values = new Values();
  const ids = entries.map((e) => values.id(e[1]));
  sectionHead(w, s.role, 'asn', 0, entries.length, values);
  let prev = 0;
  for (const [asn] of entries) {
    w.uint(asn - prev);
    prev = asn;
  }
  for (const e of entries) w.uint(e[2]);
  for (const id of ids) w.uint(id);
}

/** The sidecar bytes; `deflate` as the snapshot writer's (default fflate's). */
export function encodeSidecar(input: SidecarInput, deflate: (raw: Uint8Array, level: number) => Uint8Array = (raw, level) => deflateSync(raw, { level: level as 9 })): Uint8Array {
  const w = new ByteWriter();
  for (const s of input.prefixes as unknown as readonly PrefixSectionInput<unknown>[]) {
    const source = expandRuns(s.runs, s.prefixes.length);
    const values = new Values();
    writePrefixes(w, s, 4, source, values);
    writePrefixes(w, s, 6, source, values);
  }
  const tables = new Map<string, Values>();
  for (const s of input.intervals as unknown as readonly IntervalSectionInput<unknown>[]) {
    let values = tables.get(s.role);
    if (values === undefined) tables.set(s.role, (values = new Values()));
    writeIntervals(w, s, values);
  }
  for (const s of input.asns) writeAsns(w, s);
  const raw = w.done();
  const stored = deflate(raw, 9);
  const header: SidecarHeader = {
    sidecar_version: SIDECAR_VERSION,
    snapshot: input.snapshot,
    roas_source: input.roas_source,
    body: { raw: raw.length, stored: stored.length, checksum: crc32(stored) },
  };
  const head = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(SIDECAR_PRELUDE + head.length + stored.length);
  const view = new DataView(out.buffer);
  out.set(SIDECAR_MAGIC, 0);
  view.setUint16(8, SIDECAR_VERSION, true);
  view.setUint16(10, 0, true);
  view.setUint32(12, head.length, true);
  view.setUint32(16, crc32(head), true);
  out.set(head, SIDECAR_PRELUDE);
  out.set(stored, SIDECAR_PRELUDE + head.length);
  return out;
}
