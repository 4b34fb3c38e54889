/**
 * Every feed the builder knows, each declared once in the module that reads
 * it (see declare.ts and docs/feeds.md). The build (build/load.ts), the
 * contract test suite and the verify tool read the feeds from here; nothing
 * else names a feed.
 *
 * Order matters twice: within a role, earlier feeds win for identical
 * prefixes (specific lists before aggregates, Google Cloud before Google);
 * and the snapshot lists its sources in this order.
 *
 * @module
 */
import { ABUSE_FEEDS } from './abuse.js';
import { IPINFO_BOGONS, CYMRU_FULLBOGONS } from './bogons/bogon-lists.js';
import { IANA_SPECIAL_PURPOSE } from './bogons/iana-special.js';
import { CRAWLER_FEEDS } from './crawlers.js';
import { ASN_DERIVED } from './datacenter/asn-derived.js';
import { AWS_IP_RANGES } from './datacenter/aws.js';
import { AZURE_SERVICE_TAGS } from './datacenter/azure.js';
import { FASTLY_IP_LIST } from './datacenter/fastly.js';
import { GOOGLE_CLOUD_RANGES, GOOGLE_RANGES } from './datacenter/google.js';
import { LINODE_GEOFEED, LINODE_GEOFEED_JSON } from './datacenter/linode.js';
import { ORACLE_IP_RANGES } from './datacenter/oracle.js';
import { CLOUDFLARE_LISTS, DIGITALOCEAN_GEOFEED, DIGITALOCEAN_LISTS, VULTR_LISTS } from './datacenter/plain-lists.js';
import { X4BNET_DATACENTER_ASNS, X4BNET_DATACENTER_LISTS } from './datacenter/x4bnet.js';
import { DROP_FEEDS } from './droplist.js';
import { DBIP_CITY_LITE } from './geo/dbip-city.js';
import { MONOSANS_ALL, MONOSANS_PROXIES } from './proxy.js';
import { register, type Feed } from './register.js';
import { ICLOUD_RELAY_IPV4, ICLOUD_RELAY_IPV6, ICLOUD_RELAY_MMDB } from './relay.js';
import { RESOLVER_FEEDS } from './resolvers.js';
import { ASMAP, ASMAP_BYTECODE } from './routing/asmap.js';
import { BGPTOOLS_ASNS, BGPTOOLS_TAG_FEEDS } from './routing/bgptools.js';
import { CURATED_OPERATORS } from './curated/operators.js';
import { IP_LOCATION_DB_ASN } from './routing/ip-location-db-asn.js';
import { IPTOASN_IPV6 } from './routing/iptoasn.js';
import { ROUTEVIEWS_PFX2AS } from './routing/pfx2as.js';
import { RIR_FEEDS } from './routing/rir.js';
import { RIS_WHOIS_IPV6 } from './routing/ris-whois.js';
import { RPKI_VRPS } from './routing/rpki.js';
import { TOR_EXITS } from './tor.js';
import { AZ0_VPN, MULLVAD_RELAYS, PIA_SERVERS, PROTONVPN_LOGICALS, X4BNET_VPN_ASNS, X4BNET_VPN_LISTS } from './vpn.js';

/** Every registered feed, checked when this module loads. */
export const FEEDS: readonly Feed[] = register([
  // Routing, RPKI, allocation
  ROUTEVIEWS_PFX2AS,
  RIS_WHOIS_IPV6,
  IPTOASN_IPV6,
  ASMAP_BYTECODE,
  ASMAP,
  RPKI_VRPS,
  ...RIR_FEEDS,
  // Bogons
  IPINFO_BOGONS,
  ...CYMRU_FULLBOGONS,
  IANA_SPECIAL_PURPOSE,
  // bgp.tools
  BGPTOOLS_ASNS,
  ...BGPTOOLS_TAG_FEEDS,
  CURATED_OPERATORS,
  // Datacenter: provider-published first, then inferred
  AWS_IP_RANGES,
  GOOGLE_CLOUD_RANGES,
  GOOGLE_RANGES,
  AZURE_SERVICE_TAGS,
  ORACLE_IP_RANGES,
  DIGITALOCEAN_GEOFEED,
  ...DIGITALOCEAN_LISTS,
  LINODE_GEOFEED,
  LINODE_GEOFEED_JSON,
  ...CLOUDFLARE_LISTS,
  FASTLY_IP_LIST,
  ...VULTR_LISTS,
  ...ASN_DERIVED,
  ...X4BNET_DATACENTER_LISTS,
  X4BNET_DATACENTER_ASNS,
  // VPN: per-server lists first, then the broad ones
  PROTONVPN_LOGICALS,
  MULLVAD_RELAYS,
  PIA_SERVERS,
  AZ0_VPN,
  ...X4BNET_VPN_LISTS,
  X4BNET_VPN_ASNS,
  // Blocklists
  ...DROP_FEEDS,
  ...ABUSE_FEEDS,
  // Geo and ASN tables (npm data packages)
  ...DBIP_CITY_LITE,
  ...IP_LOCATION_DB_ASN,
  // Anonymity, crawlers, resolvers
  TOR_EXITS,
  MONOSANS_PROXIES,
  MONOSANS_ALL,
  ICLOUD_RELAY_IPV4,
  ICLOUD_RELAY_IPV6,
  ICLOUD_RELAY_MMDB,
  ...CRAWLER_FEEDS,
  ...RESOLVER_FEEDS,
]);

/**
 * The registered feed with this id.
 *
 * @throws Error when no feed has it.
 */
export function feedById(id: string): Feed {
  const f = FEEDS.find((x) => x.id === id);
  if (f === undefined) throw new Error(`no registered feed "${id}"`);
  return f;
}

export { ASN_TAGS, ROLES, defineFeed, refreshMs } from './declare.js';
export type { AnyFound, Download, FeedDeclaration, FeedOrigin, LocatePage, Locator, Role, RoleFound } from './declare.js';
export type { CopyFacts, Feed } from './register.js';
export { buildRoaIndex, validateOrigin } from './routing/rpki.js';
export { isRecentAbuse } from './abuse.js';
export type { AsnFeed, Diagnostic, FeedResult, Found, Prefix, PrefixFeed } from './types.js';
