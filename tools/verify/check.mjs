// Checking one address: what the snapshot answers against what the raw
// sources say (expect.mjs), counted per field into a tally.
import { GEO_FIELDS, SIGNAL_FIELDS, expectedGeo, expectedSignals, facts } from './expect.mjs';
import { toText } from './tables.mjs';

/** An empty tally for `fields`. */
export function newTally(fields) {
  const byField = {};
  for (const f of fields) byField[f] = { compared: 0, agree: 0, diffs: [] };
  return { addresses: 0, fields: byField, bogonNoGeo: 0, bogonWithDbip: [], bogonWithDbipCount: 0, bogonWithDbipBy: {}, geoOnBogon: [] };
}

const same = (a, b) => a === b || (Number.isNaN(a) && Number.isNaN(b));

/**
 * Checks one address into `tally`. `ctx`: { intel, ref, haveFeeds, maxListed };
 * `from` names the feed sample it came from. With `explain`, returns every
 * fact the expectation is built from (for --ip).
 */
export function checkAddress(ctx, tally, version, x, from = null, explain = false) {
  const { intel, ref, haveFeeds, maxListed } = ctx;
  const got = intel.check(toText(version, x));
  const ip = got.ip;
  tally.addresses++;
  const record = (field, expected, actual) => {
    const t = tally.fields[field];
    t.compared++;
    if (same(expected, actual)) t.agree++;
    else if (t.diffs.length < maxListed) t.diffs.push({ ip, expected, got: actual, ...(from ? { from } : {}) });
  };
  const rec = ref.geoLookup(version, x, ip);
  const f = facts(ref, version, x);
  // Geo: a bogon has no geo by rule (counted apart); elsewhere the DB-IP record.
  if (got.network.is_bogon) {
    tally.bogonNoGeo++;
    const e = expectedGeo(rec);
    if (GEO_FIELDS.some((k) => e[k] !== null)) {
      tally.bogonWithDbipCount++;
      const why = !haveFeeds ? 'snapshot says bogon' : f.special ? 'special-purpose (IANA table, ipinfo)' : f.unallocated ? 'full-bogon list, no route, ASN row or RIR delegation' : 'no bogon source holds it';
      tally.bogonWithDbipBy[why] = (tally.bogonWithDbipBy[why] ?? 0) + 1;
      if (tally.bogonWithDbip.length < maxListed) tally.bogonWithDbip.push({ ip, why, dbip: e, ...(from ? { from } : {}) });
    }
    if (GEO_FIELDS.some((k) => got.geo[k] !== null) && tally.geoOnBogon.length < maxListed) tally.geoOnBogon.push({ ip, got: got.geo });
  } else {
    const e = expectedGeo(rec);
    for (const k of GEO_FIELDS) record(k, e[k], got.geo[k]);
    const asn = f.asnRow ? f.asnRow.asn : 0;
    record('asn', asn, got.network.asn);
    record('as_org', asn === 0 ? '' : f.asnRow.org, got.network.as_org);
  }
  let e = null;
  if (haveFeeds) {
    e = expectedSignals(ref, f);
    record('is_bogon', e.is_bogon, got.network.is_bogon);
    record('is_announced', e.is_announced, got.network.is_announced);
    for (const k of SIGNAL_FIELDS) record(k, e[k], got.signals[k]);
  }
  if (!explain) return null;
  const show = (m) => (m === null ? null : { length: m.length, value: m.value });
  const out = { ip, version, from, dbip: rec ?? null, asnRow: f.asnRow };
  for (const [k, v] of Object.entries(f)) if (k !== 'asnRow') out[k] = show(v);
  const asn = f.asnRow?.asn ?? 0;
  const a = ref.asnSets;
  out.asnLists = {
    vpnWide: a.vpnWide.get(asn) ?? null,
    drop: a.drop.get(asn) ?? null,
    hosting: a.hosting.get(asn) ?? null,
    tags: [...(a.tags.get(asn) ?? [])],
    class: a.cls.get(asn) ?? null,
    operator: a.operators.get(asn) ?? null,
  };
  out.expected = e;
  out.got = { geo: got.geo, network: got.network, signals: got.signals };
  return out;
}
