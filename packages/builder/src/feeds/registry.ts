/**
 * Every feed the builder knows, by module, in precedence order (first = most
 * specific). The build (build/load.ts) and the verify tool read from here.
 *
 * @module
 */
export { ABUSE_FEEDS, IPSUM_MIN_LISTS, isRecentAbuse } from './abuse.js';
export { BGP_FEEDS, parseAsnCsvRanges, RIS_MIN_PEERS } from './bgp.js';
export { BGPTOOLS_FEEDS } from './bgptools.js';
export { BOGON_FEEDS, IANA_SPECIAL_PURPOSE_FEED } from './bogons.js';
export { CRAWLER_FEEDS } from './crawlers.js';
export { DATACENTER_FEEDS } from './datacenter.js';
export { DROP_FEEDS } from './droplist.js';
export { defaultDbipPaths, readDbipCityMmdb, readDbipCityCsv } from './geo.js';
export { PROXY_FEEDS } from './proxy.js';
export { RELAY_FEEDS } from './relay.js';
export { RESOLVER_FEEDS } from './resolvers.js';
export { RIR_FEEDS } from './rir.js';
export { RPKI_FEEDS, buildRoaIndex, validateOrigin } from './rpki.js';
export { TOR_FEEDS } from './tor.js';
export { VPN_FEEDS } from './vpn.js';
export type { FeedSpec } from './spec.js';
export type { Prefix, PrefixFeed, AsnFeed, Diagnostic } from './types.js';
