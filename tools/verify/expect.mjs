// What verify-build expects of one address: every fact the raw sources hold
// about it (reference.mjs's tables), and the fields a snapshot must answer,
// re-derived from those facts with the precedence rules of docs/data.md
// written out again (never core's rules/classify.ts).

/** Every fact about one address, from the raw sources. */
export function facts(ref, version, x) {
  const roles = ref.tables;
  const m = (t) => t.match(version, x);
  const asnRow = ref.asnAt(version, x);
  return {
    asnRow,
    special: m(roles.special),
    unallocated: m(roles.unallocated),
    route: m(roles.route),
    mapped: m(roles.mapped),
    rir: m(roles.rir),
    dcPublished: m(roles.dcPublished),
    dcInferred: m(roles.dcInferred),
    tor: m(roles.tor),
    vpn: m(roles.vpn),
    vpnBroad: m(roles.vpnBroad),
    proxy: m(roles.proxy),
    relay: m(roles.relay),
    crawler: m(roles.crawler),
    resolver: m(roles.resolver),
    drop: m(roles.drop),
    abuse: m(roles.abuse),
  };
}

export const NULL_GEO = { country_code: null, region: null, city: null, latitude: null, longitude: null };
const orNull = (s) => (typeof s === 'string' && s !== '' ? s : null);
const coord = (x) => (typeof x === 'number' ? Math.round(Math.fround(x) * 1e4) / 1e4 : null);

export function expectedGeo(rec) {
  if (rec === null || rec === undefined) return NULL_GEO;
  return {
    country_code: orNull(rec.country_code),
    region: orNull(rec.state1),
    city: orNull(rec.city),
    latitude: typeof rec.latitude === 'number' && typeof rec.longitude === 'number' ? coord(rec.latitude) : null,
    longitude: typeof rec.latitude === 'number' && typeof rec.longitude === 'number' ? coord(rec.longitude) : null,
  };
}

const BOGON_ANSWER = {
  is_bogon: true,
  is_announced: false,
  is_tor: false,
  is_vpn: false,
  vpn_operator: null,
  is_proxy: false,
  is_relay: false,
  relay_provider: null,
  is_verified_bot: false,
  verified_bot_name: null,
  is_public_resolver: false,
  is_drop_listed: false,
  recent_abuse: false,
  connection_type: 'unknown',
  datacenter_provider: null,
  is_anycast: false,
};

/** connection_type and provider, by docs/data.md's table (first row that applies). */
function connectionOf(ref, f, asn, org) {
  const a = ref.asnSets;
  if (f.dcPublished !== null) return ['datacenter', f.dcPublished.value.provider];
  const op = asn === 0 ? undefined : a.operators.get(asn);
  if (op !== undefined) return op.kind === 'mobile' ? ['mobile', null] : ['datacenter', op.name];
  const tags = (asn === 0 ? undefined : a.tags.get(asn)) ?? new Set();
  const eyeball = ['dsl', 'mobile', 'satnet'].filter((t) => tags.has(t));
  if (eyeball.length === 1 && eyeball[0] === 'satnet') return ['satellite', null];
  if (eyeball.length === 1 && eyeball[0] === 'mobile') return ['mobile', null];
  const hostingOk = eyeball.length === 0 && !(asn !== 0 && a.cls.get(asn) === 'T1');
  const listed = asn === 0 ? undefined : a.hosting.get(asn);
  if (hostingOk && (f.dcInferred !== null || listed !== undefined || tags.has('vpsh') || tags.has('cdn'))) {
    return ['datacenter', (f.dcInferred?.value ?? '') || listed || org || null];
  }
  // isp only for announced space (a BGP route, else the asmap): unannounced space is unknown.
  const announced = f.route !== null || f.mapped !== null;
  return [announced ? 'isp' : 'unknown', null];
}

/** The precedence rules of docs/data.md, written out again (never core's rules/classify.ts). */
export function expectedSignals(ref, f) {
  const a = ref.asnSets;
  const asn = f.asnRow ? f.asnRow.asn : 0;
  const org = asn === 0 ? '' : f.asnRow.org;
  const inUse = f.route !== null || f.mapped !== null || f.asnRow !== null || f.rir !== null || f.drop !== null;
  if (f.special !== null || (f.unallocated !== null && !inUse)) return BOGON_ANSWER;
  const crawler = f.crawler?.value ?? null;
  const relay = f.relay?.value ?? null;
  const tor = f.tor !== null;
  const drop = f.drop !== null || (asn !== 0 && a.drop.has(asn));
  const cdnEdge = f.dcPublished?.value.cdn === true;
  let vpnName = null;
  if (crawler === null && relay === null && !cdnEdge) {
    if (f.vpn !== null) vpnName = f.vpn.value;
    else if (f.vpnBroad !== null && !drop && !tor && !(asn !== 0 && a.vpnWide.has(asn))) vpnName = f.vpnBroad.value;
  }
  const [connection, provider] = connectionOf(ref, f, asn, org);
  const op = asn === 0 ? undefined : a.operators.get(asn);
  return {
    is_bogon: false,
    is_announced: f.route !== null || f.mapped !== null,
    is_tor: tor,
    is_vpn: vpnName !== null,
    vpn_operator: vpnName === null || vpnName === '' ? null : vpnName,
    is_proxy: crawler === null && f.proxy !== null,
    is_relay: relay !== null,
    relay_provider: relay,
    is_verified_bot: crawler !== null,
    verified_bot_name: crawler,
    is_public_resolver: f.resolver !== null,
    is_drop_listed: drop,
    recent_abuse: crawler === null && f.abuse !== null,
    connection_type: connection,
    datacenter_provider: provider,
    is_anycast: f.dcPublished?.value.anycast === true || op?.anycast === true,
  };
}

export const GEO_FIELDS = ['country_code', 'region', 'city', 'latitude', 'longitude'];
export const NET_FIELDS = ['asn', 'as_org'];
export const ROUTING_FIELDS = ['is_bogon', 'is_announced'];
export const SIGNAL_FIELDS = [
  'is_tor', 'is_vpn', 'vpn_operator', 'is_proxy', 'is_relay', 'relay_provider', 'is_verified_bot', 'verified_bot_name',
  'is_public_resolver', 'is_drop_listed', 'recent_abuse', 'connection_type', 'datacenter_provider', 'is_anycast',
];

/** The fields compared: geo and ASN always; routing and signals when the feeds are there. */
export const fieldsFor = (haveFeeds) => [...GEO_FIELDS, ...NET_FIELDS, ...(haveFeeds ? [...ROUTING_FIELDS, ...SIGNAL_FIELDS] : [])];

/** Where a field is in a result: `geo.city`, `network.asn`, `signals.is_tor`. */
export const fieldPath = (f) => (GEO_FIELDS.includes(f) ? `geo.${f}` : NET_FIELDS.includes(f) || ROUTING_FIELDS.includes(f) ? `network.${f}` : `signals.${f}`);
