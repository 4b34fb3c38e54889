/**
 * What the contract suite (contract.test.ts) expects of every registered
 * feed, by id: entries read, lines rejected and data date, for the fixture
 * (fixtures/feeds/<path>) and for the full-size copy: data/feeds for a
 * vendored feed, the npm package file for an npm table (both checked by
 * `pnpm test`), the team's collection for a feed the repository does not
 * carry (IPINTEL_FEEDS, else ../shared/feeds; checked by `pnpm feeds:full`).
 * One place for every count: they describe particular copies of the files,
 * not the feeds, so they live with the tests, not in the declarations.
 *
 * Full-size counts are those of feeds/SOURCES.md (the vendored copies are
 * byte-identical to the collection's). `full: null` says the full-size copy
 * is checked elsewhere, and `NO_FULL_SIZE_CHECK` says where.
 */

export interface Expected {
  readonly entries: number;
  readonly rejected: number;
  readonly date: string | null;
}

const c = (entries: number, rejected: number, date: string | null): Expected => ({ entries, rejected, date });

export const EXPECTED: Readonly<Record<string, { readonly fixture: Expected; readonly full: Expected | null }>> = {
  'routeviews-pfx2as': { fixture: c(8, 5, '2024-04-06T12:00:00Z'), full: c(998_042, 0, '2024-04-06T12:00:00Z') },
  // 270,345 rows, those seen by >= 10 peers
  'ris-whois-ipv6': { fixture: c(5, 3, '2024-12-20T10:06:01Z'), full: c(228_726, 0, '2024-12-20T10:06:01Z') },
  'iptoasn-ipv6': { fixture: c(5, 2, '2023-12-08T21:32:18Z'), full: c(256_732, 0, '2023-12-08T21:32:18Z') },
  'ipintel-operators': { fixture: c(7, 0, null), full: c(7, 0, null) },
  'asmap-bytecode': { fixture: c(20, 0, '2025-12-04T16:00:00Z'), full: c(701_378, 0, '2025-12-04T16:00:00Z') },
  'asmap': { fixture: c(6, 2, '2025-12-04T16:00:00Z'), full: c(449_186, 0, '2025-12-04T16:00:00Z') },
  'rpki-vrps': { fixture: c(7, 4, '2025-07-20T10:01:43Z'), full: c(723_524, 0, '2025-07-20T10:01:43Z') },
  'rir-afrinic': { fixture: c(6, 4, '2026-08-21'), full: c(7230, 0, '2026-08-21') },
  'rir-apnic': { fixture: c(5, 2, '2026-06-17'), full: c(71_599, 0, '2026-06-17') },
  // 768 addresses are a /23 and a /24; the reserved records are skipped, the impossible date rejected
  'rir-arin': { fixture: c(5, 1, '2026-08-22'), full: null },
  // LACNIC's header and asn summary overcount by 1520 (2 diagnostics)
  'rir-lacnic': { fixture: c(4, 3, '2026-02-12'), full: c(33_358, 2, '2026-02-12') },
  'rir-lacnic-extended': { fixture: c(3, 1, '2024-02-08'), full: c(31_930, 0, '2024-02-08') },
  'rir-ripencc': { fixture: c(4, 1, '2026-08-22'), full: null },
  // the cut-off last line and the count mismatches
  'rir-ripencc-partial': { fixture: c(3, 5, '2026-07-20'), full: c(41_604, 5, '2026-07-20') },
  'bogons-ipinfo': { fixture: c(8, 1, null), full: c(16, 0, null) },
  'bogons-cymru-v4': { fixture: c(7, 1, '2024-03-10T16:55:01Z'), full: c(703, 0, '2024-03-10T16:55:01Z') },
  'bogons-cymru-v6': { fixture: c(5, 1, '2024-03-10T16:55:01Z'), full: c(143_544, 0, '2024-03-10T16:55:01Z') },
  'iana-special-purpose': { fixture: c(235, 0, null), full: c(235, 0, null) },
  'bgptools-asns': { fixture: c(8, 3, '2026-05-31'), full: c(120_793, 0, '2026-05-31') },
  'bgptools-tag-mobile': { fixture: c(3, 1, '2026-05-31'), full: c(348, 0, '2026-05-31') },
  'bgptools-tag-satnet': { fixture: c(2, 0, '2026-05-31'), full: c(44, 0, '2026-05-31') },
  'bgptools-tag-dsl': { fixture: c(3, 0, '2026-05-31'), full: c(3560, 0, '2026-05-31') },
  'bgptools-tag-vpsh': { fixture: c(3, 0, '2026-05-31'), full: c(2167, 0, '2026-05-31') },
  'bgptools-tag-cdn': { fixture: c(2, 0, '2026-05-31'), full: c(110, 0, '2026-05-31') },
  'bgptools-tag-anycast': { fixture: c(2, 0, '2026-05-31'), full: c(818, 0, '2026-05-31') },
  'bgptools-tag-tor': { fixture: c(2, 0, '2026-05-31'), full: c(1026, 0, '2026-05-31') },
  'bgptools-tag-vpn': { fixture: c(2, 0, '2026-05-31'), full: c(766, 0, '2026-05-31') },
  // distinct prefixes: 10659 + 6158 records, one per service
  'aws': { fixture: c(5, 2, '2026-08-21T07:37:05Z'), full: c(11_005, 0, '2026-08-21T07:37:05Z') },
  'google-cloud': { fixture: c(3, 1, '2026-08-21T08:05:42Z'), full: c(1092, 0, '2026-08-21T08:05:42Z') },
  'google': { fixture: c(5, 1, '2026-08-21T08:05:42Z'), full: c(114, 0, '2026-08-21T08:05:42Z') },
  // tag AzureCloud: 9585 IPv4 + 3495 IPv6
  'azure': { fixture: c(4, 1, null), full: c(13_080, 0, null) },
  'oracle-cloud': { fixture: c(4, 1, '2026-07-27T06:55:33Z'), full: c(1102, 0, '2026-07-27T06:55:33Z') },
  'digitalocean-geofeed': { fixture: c(3, 1, null), full: c(1182, 0, null) },
  'digitalocean-ipv4': { fixture: c(3, 1, null), full: c(1080, 0, null) },
  'digitalocean-ipv6': { fixture: c(2, 1, null), full: c(148, 0, null) },
  'linode-geofeed': { fixture: c(4, 1, '2025-07-24T10:00:06Z'), full: c(4552, 0, '2025-07-24T10:00:06Z') },
  'linode-geofeed-json': { fixture: c(3, 1, '2026-08-21T10:00:05Z'), full: c(5505, 0, '2026-08-21T10:00:05Z') },
  'cloudflare-ipv4': { fixture: c(5, 1, null), full: c(15, 0, null) },
  'cloudflare-ipv6': { fixture: c(3, 1, null), full: c(7, 0, null) },
  'fastly': { fixture: c(4, 1, null), full: c(21, 0, null) },
  'vultr-ipv4': { fixture: c(3, 1, null), full: c(442, 0, null) },
  'vultr-ipv6': { fixture: c(3, 1, null), full: c(54, 0, null) },
  // 2848 + 541 listed, 66 repeats
  'asn-derived-alibaba': { fixture: c(3, 0, null), full: c(3323, 0, null) },
  'asn-derived-contabo': { fixture: c(3, 0, null), full: c(573, 0, null) },
  'asn-derived-flyio': { fixture: c(3, 0, null), full: c(256, 0, null) },
  'asn-derived-hetzner': { fixture: c(4, 1, null), full: c(774, 0, null) },
  'asn-derived-ibmcloud': { fixture: c(3, 0, null), full: c(414, 0, null) },
  // 822 + 271 listed, 8 repeats
  'asn-derived-leaseweb': { fixture: c(3, 0, null), full: c(1085, 0, null) },
  'asn-derived-m247': { fixture: c(3, 0, null), full: c(236, 0, null) },
  'asn-derived-ovh': { fixture: c(3, 0, null), full: c(765, 0, null) },
  'asn-derived-scaleway': { fixture: c(3, 0, null), full: c(28, 0, null) },
  // 3373 + 75 listed, 20 repeats
  'asn-derived-tencent': { fixture: c(3, 0, null), full: c(3428, 0, null) },
  'asn-derived-vultr': { fixture: c(3, 0, null), full: c(2933, 0, null) },
  'x4bnet-datacenter-ipv4': { fixture: c(4, 1, null), full: c(42_566, 0, null) },
  'x4bnet-datacenter-ipv6': { fixture: c(2, 1, null), full: c(8752, 0, null) },
  // 906 lines: 14 ASNs listed twice (the repeats are the rejected lines)
  'x4bnet-datacenter-asn': { fixture: c(6, 2, null), full: c(892, 14, null) },
  // 3321 servers: 2424 distinct ExitIPs
  'protonvpn': { fixture: c(3, 2, null), full: c(2424, 0, null) },
  'mullvad': { fixture: c(4, 1, null), full: c(566, 0, null) },
  'pia': { fixture: c(4, 1, null), full: c(8019, 0, null) },
  // 32660 lines: the 1.2.3.4 placeholder is rejected
  'az0-vpn': { fixture: c(6, 2, '2025-08-31T13:25:28Z'), full: c(32_659, 1, '2025-08-31T13:25:28Z') },
  'x4bnet-vpn-ipv4': { fixture: c(4, 1, null), full: c(10_862, 0, null) },
  'x4bnet-vpn-ipv6': { fixture: c(3, 1, null), full: c(498, 0, null) },
  'x4bnet-vpn-asn': { fixture: c(4, 1, null), full: c(15, 0, null) },
  'spamhaus-drop-v4': { fixture: c(3, 2, '2026-08-22T16:14:02Z'), full: c(1699, 0, '2026-08-22T16:14:02Z') },
  'spamhaus-drop-v6': { fixture: c(3, 1, null), full: c(91, 0, null) },
  'spamhaus-asndrop': { fixture: c(3, 1, '2026-08-22T17:44:02Z'), full: c(439, 0, '2026-08-22T17:44:02Z') },
  // 30773 of them meet the IPSUM_MIN_LISTS threshold (abuse.test.ts)
  'abuse-ipsum': { fixture: c(6, 2, '2026-08-22T01:00:29Z'), full: c(120_430, 0, '2026-08-22T01:00:29Z') },
  'abuse-blocklist-de': { fixture: c(4, 1, '2026-08-22T16:17:27.502Z'), full: c(26_009, 0, '2026-08-22T16:17:27.502Z') },
  'abuse-cinsscore': { fixture: c(3, 0, '2026-08-22T08:20:56.500Z'), full: c(15_000, 0, '2026-08-22T08:20:56.500Z') },
  'abuse-greensnow': { fixture: c(3, 0, '2026-08-22T16:31:11.882Z'), full: c(2895, 0, '2026-08-22T16:31:11.882Z') },
  'abuse-et-compromised': { fixture: c(3, 0, '2026-08-22T08:18:00.641Z'), full: c(539, 0, '2026-08-22T08:18:00.641Z') },
  'abuse-threatfox': { fixture: c(3, 1, '2026-08-22T16:18:29.807Z'), full: c(2344, 0, '2026-08-22T16:18:29.807Z') },
  'abuse-binarydefense': { fixture: c(3, 0, '2026-08-22T16:25:09.973Z'), full: c(2662, 0, '2026-08-22T16:25:09.973Z') },
  'abuse-bruteforceblocker': { fixture: c(3, 0, '2026-08-22T16:25:34.817Z'), full: c(548, 0, '2026-08-22T16:25:34.817Z') },
  'abuse-dshield': { fixture: c(3, 1, '2026-08-22T16:15:58.458Z'), full: c(20, 0, '2026-08-22T16:15:58.458Z') },
  'abuse-firehol-level1': { fixture: c(6, 1, '2026-08-22T16:12:36.181Z'), full: c(4619, 0, '2026-08-22T16:12:36.181Z') },
  'dbip-city-lite-ipv4': { fixture: c(24, 1, null), full: null },
  'dbip-city-lite-ipv6': { fixture: c(6, 1, null), full: null },
  // the package's one overlapping row, clipped
  'ip-location-db-asn-ipv4': { fixture: c(9, 7, null), full: c(411_961, 1, '2026-06-17') },
  'ip-location-db-asn-ipv6': { fixture: c(3, 1, null), full: c(103_197, 0, '2026-06-17') },
  'tor-exits': { fixture: c(5, 2, '2026-08-22T16:18:35.025Z'), full: c(1372, 0, '2026-08-22T16:18:35.025Z') },
  // 492 records: 456 hosts + 449 exit IPs = 571 distinct addresses
  'monosans-proxies': { fixture: c(5, 2, null), full: c(571, 0, null) },
  // 492 lines: 456 distinct hosts
  'monosans-all': { fixture: c(4, 2, null), full: c(456, 0, null) },
  'icloud-relay-ipv4': { fixture: c(3, 1, null), full: c(41_949, 0, null) },
  'icloud-relay-ipv6': { fixture: c(3, 1, null), full: c(10_455, 0, null) },
  // 9284 IPv4 + 18507 IPv6 networks
  'icloud-relay-mmdb': { fixture: c(6, 0, '2026-08-17T05:21:18Z'), full: c(27_791, 0, '2026-08-17T05:21:18Z') },
  // 169 IPv4 + 146 IPv6
  'crawler-googlebot': { fixture: c(4, 2, '2026-08-21T14:45:42Z'), full: c(315, 0, '2026-08-21T14:45:42Z') },
  // 135 + 135
  'crawler-google-special': { fixture: c(2, 1, '2026-08-21T14:46:19Z'), full: c(270, 0, '2026-08-21T14:46:19Z') },
  // 528 + 528
  'crawler-google-user-triggered': { fixture: c(3, 0, '2026-08-21T14:45:40Z'), full: c(1056, 0, '2026-08-21T14:45:40Z') },
  'crawler-applebot': { fixture: c(2, 1, '2026-09-15T10:00:00Z'), full: c(24, 0, '2026-09-15T10:00:00Z') },
  'crawler-bingbot': { fixture: c(4, 1, null), full: c(28, 0, null) },
  'crawler-openai-gptbot': { fixture: c(3, 1, null), full: c(17, 0, null) },
  'crawler-openai-chatgpt-user': { fixture: c(3, 0, null), full: c(193, 0, null) },
  'crawler-openai-searchbot': { fixture: c(3, 0, null), full: c(32, 0, null) },
  'crawler-duckduckbot': { fixture: c(3, 1, null), full: c(481, 0, null) },
  'crawler-perplexitybot': { fixture: c(3, 0, null), full: c(12, 0, null) },
  // 1588 IPv4 + 222 IPv6 minus Meta-ExternalAgent (33 + 2) and Yandex (14 + 1), skipped
  'crawler-ipverse': { fixture: c(6, 1, '2026-08-20T05:35:39Z'), full: c(1760, 0, '2026-08-21T11:21:36Z') },
  'crawler-openai-all': { fixture: c(9, 0, null), full: c(254, 0, null) },
  'resolver-dnscrypt': { fixture: c(7, 2, null), full: c(908, 0, null) },
  'resolver-doh-ipv4': { fixture: c(5, 1, null), full: c(1975, 0, null) },
  'resolver-doh-ipv6': { fixture: c(3, 1, null), full: c(1340, 0, null) },
  // 99 of them IPv6
  'resolver-public-dns-validated': { fixture: c(6, 1, null), full: c(4737, 0, null) },
};

/** Why a feed has no full-size expectation here. */
export const NO_FULL_SIZE_CHECK: Readonly<Record<string, string>> = {
  'rir-arin': 'no full-size copy exists outside the publisher (the collection has none; --fetch downloads it): fetch.test.ts reads the fixture as ARIN serves it',
  'rir-ripencc': 'no full-size copy exists outside the publisher (the collection has only a truncated one; --fetch downloads it): fetch.test.ts reads the fixture as RIPE NCC serves it',
  'dbip-city-lite-ipv4': 'geo.test.ts reads the npm MMDB in full: every network enumerated, 20,000 addresses against mmdb-lib',
  'dbip-city-lite-ipv6': 'geo.test.ts reads the npm MMDB in full: every network enumerated, 5,000 addresses against mmdb-lib',
};
