// verify-build's report: the tallies as the JSON report (--json) and as the
// text table the README embeds between its verify markers.
import { fieldPath } from './expect.mjs';

/** Agreement in percent, floored to 3 decimals (100 only when every value agrees); null when nothing was compared. */
export const pct = (a, c) => (c === 0 ? null : Math.floor((a / c) * 100_000) / 1000);

/** The JSON report; `ok` is true when every compared field agrees and no bogon carries geo. */
export function buildReport({ tallies, fields, meta }) {
  let ok = true;
  const samples = {};
  for (const [kind, t] of Object.entries(tallies)) {
    const list = fields.map((f) => {
      const x = t.fields[f];
      if (x.agree !== x.compared) ok = false;
      return { field: fieldPath(f), compared: x.compared, agree: x.agree, agreement: pct(x.agree, x.compared), differences: x.diffs };
    });
    if (t.geoOnBogon.length > 0) ok = false;
    samples[kind] = {
      addresses: t.addresses,
      fields: list,
      bogon_no_geo: { count: t.bogonNoGeo, dbip_has_data: t.bogonWithDbipCount, dbip_has_data_by_reason: t.bogonWithDbipBy, examples: t.bogonWithDbip, geo_on_bogon: t.geoOnBogon },
    };
  }
  return { ...meta, samples, ok };
}

const j = (v) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));

/** The text form; `sampleFeeds` is how many signal feeds the feed sample drew from. */
export function formatText(report, { v4, v6, sampleFeeds }) {
  const out = [];
  out.push(`snapshot ${report.snapshot} (built ${report.build_date})`);
  out.push(`geo: ${report.geo_source}; asn: ${report.asn_source}; feeds: ${report.feeds ?? 'none'}; seed ${report.seed}`);
  for (const n of report.notes) out.push(`NOTE: ${n}`);
  for (const [kind, s] of Object.entries(report.samples)) {
    out.push('');
    out.push(
      kind === 'random'
        ? `Random sample: ${s.addresses} addresses (${v4} IPv4, ${v6} IPv6: half in 2000::/3, half in DB-IP/ASN ranges)`
        : `Feed sample: ${s.addresses} addresses drawn from ${sampleFeeds} signal feeds' own entries`,
    );
    const w = Math.max(...s.fields.map((f) => f.field.length), 5);
    out.push(`${'field'.padEnd(w)} | compared |    agree | agreement %`);
    out.push(`${'-'.repeat(w)}-|----------|----------|------------`);
    for (const f of s.fields) out.push(`${f.field.padEnd(w)} | ${String(f.compared).padStart(8)} | ${String(f.agree).padStart(8)} | ${f.agreement === null ? '-' : f.agreement.toFixed(3).padStart(10)}`);
    const b = s.bogon_no_geo;
    const by = Object.entries(b.dbip_has_data_by_reason).map(([k, v]) => `${v} ${k}`).join('; ');
    out.push(`bogon (no geo by rule): ${b.count} address(es), not compared for geo/ASN; DB-IP has data for ${b.dbip_has_data} of them${by ? ` (${by})` : ''}`);
    for (const e of b.examples) out.push(`  ${e.ip}${e.from ? ` [${e.from}]` : ''}: DB-IP ${j(e.dbip)}`);
    for (const e of b.geo_on_bogon) out.push(`  BOGON WITH GEO ${e.ip}: ${j(e.got)}`);
    for (const f of s.fields) {
      if (f.agree === f.compared) continue;
      out.push(`${f.field}: ${f.compared - f.agree} differ${f.differences.length < f.compared - f.agree ? ` (first ${f.differences.length})` : ''}`);
      for (const d of f.differences) out.push(`  ${d.ip}: expected ${j(d.expected)}, got ${j(d.got)}${d.from ? ` [${d.from}]` : ''}`);
    }
  }
  out.push('');
  out.push(report.ok ? `ALL FIELDS AGREE (${report.seconds}s)` : `DISAGREEMENTS FOUND (${report.seconds}s)`);
  return `${out.join('\n')}\n`;
}
