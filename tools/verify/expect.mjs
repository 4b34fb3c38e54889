// What verify-build expects of one address: every fact the raw sources hold
// about it (reference.mjs's tables), and the fields a snapshot must answer,
// re-derived from those facts with the precedence rules of docs/data.md
// written out again (never the builder's classify.ts).

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
    abuseBroad: m(roles.abuseBroad),
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

/** The precedence rules of classify.ts, written out again. */
export function expectedSignals(ref, f) {
  const asnSets = ref.asnSets;
  const asn = f.asnRow ? f.asnRow.asn : 0;
  const org = asn === 0 ? '' : f.asnRow.org;
  const inUse = f.route !== null || f.asnRow !== null || f.rir !== null;
  const bogon = f.special !== null || (f.unallocated !== null && !inUse);
  if (bogon) {
    return {
      is_bogon: true,
      is_announced: false,
      is_tor: false,
      is_vpn: false,
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
    };
  }
  const crawler = f.crawler?.value ?? null;
  const relay = f.relay?.value ?? null;
  const tor = f.tor !== null;
  const drop = f.drop !== null || (asn !== 0 && asnSets.drop.has(asn));
  const broadVpn = f.vpnBroad !== null || (asn !== 0 && asnSets.vpn.has(asn));
  const vpn = crawler === null && relay === null && (f.vpn !== null || (broadVpn && !drop && !tor));
  const abuse = crawler === null && (f.abuse !== null || (f.abuseBroad !== null && !drop));
  const proxy = crawler === null && f.proxy !== null;
  let connection;
  let provider = null;
  const hostingName = asn !== 0 ? asnSets.hosting.get(asn) : undefined;
  if (f.dcPublished !== null) {
    connection = 'datacenter';
    provider = f.dcPublished.value;
  } else if (asn !== 0 && asnSets.satellite.has(asn)) connection = 'satellite';
  else if (asn !== 0 && asnSets.mobile.has(asn)) connection = 'mobile';
  else if (f.dcInferred !== null || hostingName !== undefined) {
    connection = 'datacenter';
    provider = (f.dcInferred?.value ?? '') || hostingName || org || null;
  } else if (f.route !== null || asn !== 0 || f.rir !== null) connection = 'isp';
  else connection = 'unknown';
  return {
    is_bogon: false,
    is_announced: f.route !== null,
    is_tor: tor,
    is_vpn: vpn,
    is_proxy: proxy,
    is_relay: relay !== null,
    relay_provider: relay,
    is_verified_bot: crawler !== null,
    verified_bot_name: crawler,
    is_public_resolver: f.resolver !== null,
    is_drop_listed: drop,
    recent_abuse: abuse,
    connection_type: connection,
    datacenter_provider: provider,
  };
}

export const GEO_FIELDS = ['country_code', 'region', 'city', 'latitude', 'longitude'];
export const NET_FIELDS = ['asn', 'as_org'];
export const ROUTING_FIELDS = ['is_bogon', 'is_announced'];
export const SIGNAL_FIELDS = [
  'is_tor', 'is_vpn', 'is_proxy', 'is_relay', 'relay_provider', 'is_verified_bot', 'verified_bot_name',
  'is_public_resolver', 'is_drop_listed', 'recent_abuse', 'connection_type', 'datacenter_provider',
];

/** The fields compared: geo and ASN always; routing and signals when the feeds are there. */
export const fieldsFor = (haveFeeds) => [...GEO_FIELDS, ...NET_FIELDS, ...(haveFeeds ? [...ROUTING_FIELDS, ...SIGNAL_FIELDS] : [])];

/** Where a field is in a result: `geo.city`, `network.asn`, `signals.is_tor`. */
export const fieldPath = (f) => (GEO_FIELDS.includes(f) ? `geo.${f}` : NET_FIELDS.includes(f) || ROUTING_FIELDS.includes(f) ? `network.${f}` : `signals.${f}`);
