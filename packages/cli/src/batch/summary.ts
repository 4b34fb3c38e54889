/**
 * `batch --summary`: counts per country, ASN, connection type, signal and
 * risk level instead of one row per address.
 *
 * It is a sink at the end of the usual pipeline, so the per-row hot loop is
 * untouched (and --jobs still spreads the checks over threads): the run
 * renders NDJSON rows of the summary's columns only (summaryColumns, no
 * `ip`), so every address of the same answer gives the same row text, and
 * the sink counts row texts. Each distinct row is parsed once at the end and
 * its count added to each dimension. Error rows are counted by the run
 * itself (they carry their line, so they are told apart by their `error`).
 *
 * The signals counted are the boolean fields of the result's `signals`
 * (read from a result of the snapshot), so a boolean signal added to the
 * result shape (and to columns.ts) is counted without a change here.
 *
 * @module
 */
import { Writable } from 'node:stream';

/**
 * The flattened columns the summary reads (batch renders rows of these
 * only): country, ASN, connection type, the boolean signals named, risk
 * level. No `ip`: every address with the same answer renders the same text.
 */
export function summaryColumns(signalNames: readonly string[]): string[] {
  return ['geo.country_code', 'geo.country', 'network.asn', 'network.as_org', 'signals.connection_type', ...signalNames.map((s) => `signals.${s}`), 'risk.level'];
}

export interface Count {
  readonly count: number;
}

export interface Summary {
  /** Rows (addresses checked), answered rows and rows that were not addresses. */
  readonly rows: number;
  readonly answered: number;
  readonly invalid: number;
  readonly countries: readonly (Count & { readonly country_code: string | null; readonly country: string | null })[];
  readonly asns: readonly (Count & { readonly asn: number; readonly as_org: string })[];
  readonly connection_types: readonly (Count & { readonly connection_type: string })[];
  /** Every boolean signal, with the number of answered rows where it is true (0 included). */
  readonly signals: readonly (Count & { readonly signal: string })[];
  readonly risk_levels: readonly (Count & { readonly level: string })[];
}

const LF = 10;

/** A Writable that counts the distinct NDJSON rows written to it. */
export class SummarySink extends Writable {
  private readonly counts = new Map<string, number>();
  private carry = '';

  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: (e?: Error | null) => void): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let at = 0;
    for (;;) {
      const lf = buf.indexOf(LF, at);
      if (lf < 0) break;
      // latin1: one char per byte, cheap, and equal bytes give equal keys (decoded properly once, at the end).
      const row = this.carry + buf.toString('latin1', at, lf);
      this.carry = '';
      if (row.length > 0) this.counts.set(row, (this.counts.get(row) ?? 0) + 1);
      at = lf + 1;
    }
    if (at < buf.length) this.carry += buf.toString('latin1', at);
    done();
  }

  /**
   * Folds the counted rows into the summary. `invalid` comes from the run
   * (error rows are skipped here); `signalNames` are the boolean fields of
   * the result's `signals` (listed even when no row has them).
   */
  summary(rows: number, invalid: number, signalNames: readonly string[]): Summary {
    const countries = new Tally<string>();
    const countryName = new Map<string, string | null>();
    const asns = new Tally<number>();
    const asOrg = new Map<number, string>();
    const connection = new Tally<string>();
    const signals = new Tally<string>();
    const levels = new Tally<string>();
    for (const [text, n] of this.counts) {
      const row = JSON.parse(Buffer.from(text, 'latin1').toString('utf8')) as Record<string, unknown>;
      if ('error' in row) continue;
      const code = row['geo.country_code'] as string | null;
      countries.add(JSON.stringify(code), n);
      countryName.set(JSON.stringify(code), row['geo.country'] as string | null);
      const asn = row['network.asn'] as number;
      asns.add(asn, n);
      asOrg.set(asn, row['network.as_org'] as string);
      connection.add(row['signals.connection_type'] as string, n);
      levels.add(row['risk.level'] as string, n);
      for (const name of signalNames) if (row[`signals.${name}`] === true) signals.add(name, n);
    }
    return {
      rows,
      answered: rows - invalid,
      invalid,
      countries: countries.sorted().map(([k, count]) => ({ country_code: JSON.parse(k) as string | null, country: countryName.get(k) ?? null, count })),
      asns: asns.sorted().map(([asn, count]) => ({ asn, as_org: asOrg.get(asn) ?? '', count })),
      connection_types: connection.sorted().map(([connection_type, count]) => ({ connection_type, count })),
      // Every signal in result order, zeros included: "none of these" is an answer too.
      signals: signalNames.map((signal) => ({ signal, count: signals.get(signal) })),
      risk_levels: levels.sorted().map(([level, count]) => ({ level, count })),
    };
  }
}

/** Counts per key, sorted by count (descending), then key. */
class Tally<K extends string | number> {
  private readonly m = new Map<K, number>();
  add(k: K, n: number): void {
    this.m.set(k, (this.m.get(k) ?? 0) + n);
  }
  get(k: K): number {
    return this.m.get(k) ?? 0;
  }
  sorted(): [K, number][] {
    return [...this.m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
}

const num = (n: number): string => n.toLocaleString('en-US');

/** The summary as tables: each dimension's top `top` entries with counts and shares of the answered rows. */
export function renderSummary(s: Summary, top: number): string {
  const pct = (n: number): string => (s.answered === 0 ? '-' : `${((100 * n) / s.answered).toFixed(1)}%`);
  const table = (title: string, rows: readonly (readonly [string, number])[], limit: number): string[] => {
    const shown = rows.slice(0, limit);
    const width = Math.max(title.length, ...shown.map(([k]) => k.length));
    const cw = Math.max(9, ...shown.map(([, n]) => num(n).length));
    const out = [`${title.padEnd(width)}  ${'addresses'.padStart(cw)}  ${'share'.padStart(6)}`];
    for (const [k, n] of shown) out.push(`${k.padEnd(width)}  ${num(n).padStart(cw)}  ${pct(n).padStart(6)}`);
    if (rows.length > shown.length) {
      const rest = rows.slice(limit).reduce((a, [, n]) => a + n, 0);
      out.push(`${`(${num(rows.length - shown.length)} more)`.padEnd(width)}  ${num(rest).padStart(cw)}  ${pct(rest).padStart(6)}`);
    }
    return [...out, ''];
  };
  const lines = [
    `${num(s.rows)} rows: ${num(s.answered)} answered, ${num(s.invalid)} not IP addresses`,
    '',
    ...table('country', s.countries.map((c) => [c.country_code === null ? '(none)' : `${c.country_code} ${c.country ?? ''}`.trim(), c.count] as const), top),
    ...table('ASN', s.asns.map((a) => [a.asn === 0 ? '(none)' : `AS${a.asn} ${a.as_org}`.trim(), a.count] as const), top),
    ...table('connection type', s.connection_types.map((c) => [c.connection_type, c.count] as const), Infinity),
    ...table('signal', s.signals.map((x) => [x.signal, x.count] as const), Infinity),
    ...table('risk level', s.risk_levels.map((r) => [r.level, r.count] as const), Infinity),
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}
