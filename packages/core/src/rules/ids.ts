/**
 * The precedence rules' ids, each with the short text an explanation shows.
 * The rule numbers in the texts are those of docs/data.md ("Precedence
 * rules"), whose table "Rule ids (explanations)" lists the same ids and
 * texts (test/docs-tables.test.ts holds the two together). classify.ts
 * reports the id of the rule that decided each field.
 *
 * @module
 */

export const RULES = {
  'bogon-special': 'rule 1: IANA special-purpose space is always a bogon',
  'bogon-unallocated': 'rule 1: space a full-bogon list calls unallocated, with nothing showing it in use, is a bogon',
  'not-bogon': 'rule 1: no special-purpose range holds the address, and unallocated space counts only when nothing shows it in use',
  'asn-table': 'the ASN table row holding the address (0 and "" when none)',
  'routing-bgp': 'rule 2: a BGP table routes the address',
  'routing-asmap': 'rule 2: no BGP table routes it and the asmap maps it (routing evidence inferred)',
  'routing-none': 'rule 2: neither a BGP table nor the asmap has the address',
  'rpki-route': 'rule 2: the RFC 6811 status of the BGP route for the origin shown',
  'rpki-unknown': 'rule 2: unknown: no ROA set, no BGP route, or the route lacks the origin shown',
  'rir-delegation': 'the RIR delegation holding the address (null when none)',
  'relay-not-vpn': 'rule 3: a relay range is not a VPN',
  'cdn-edge-not-vpn': "rule 4: a CDN's published edge range is never a VPN",
  'crawler-not-vpn': 'rule 5: verified crawlers are never VPN, proxy or recent abuse',
  'vpn-per-server': "rule 6: a per-server VPN list holds the address (its operator's name when the list gives one)",
  'vpn-aggregate': 'rule 6: an aggregate VPN list holds the address',
  'vpn-aggregate-yields': 'rule 6: an aggregate VPN list yields to DROP and Tor',
  'vpn-asn-wide': 'rule 6: an aggregate entry inside an ASN the publisher expands whole is not a VPN server',
  'connection-published': 'connection type 1: a provider-published datacenter range (authoritative)',
  'connection-operator': 'rule 8: the curated operator table (mobile-first operator, CDN operator)',
  'connection-satellite': "rule 7: the ASN's only eyeball tag is satnet",
  'connection-mobile': "rule 7: the ASN's only eyeball tag is mobile",
  'connection-hosting': 'rule 7: an ASN-derived hosting list, a hosting ASN or a vpsh/cdn tag, on an ASN with no eyeball tag that is not T1',
  'connection-isp': 'connection type: any other announced address (a BGP route or the asmap) is isp',
  'connection-unknown': 'connection type: not announced (no BGP route, not in the asmap), and no rule above applies',
  'abuse-reports': 'rule 9: a list of observed abuse holds the address',
  'drop-prefix': 'the DROP list holds the address',
  'drop-asn': 'rule 10: ASN-DROP lists the ASN of the address',
  'anycast-published': "a provider's published range marks it anycast",
  'anycast-operator': 'rule 8: the curated operator table says the ASN is anycast',
  listed: 'the source holding the address (longest prefix) says so',
  'not-listed': 'no source holds the address: the default value',
} as const;

export type RuleId = keyof typeof RULES;
