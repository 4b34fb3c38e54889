/**
 * JSON Schemas (OpenAPI 3.1 dialect) of every body the API sends or takes.
 * Kept beside the routes' shapes; the openapi test validates real answers
 * against them, so a drift between code and document fails a test.
 *
 * @module
 */
import { PROBLEMS } from '../http/problem.js';

type Schema = Record<string, unknown>;

const str = { type: 'string' };
const bool = { type: 'boolean' };
const int = { type: 'integer' };
const nstr = { type: ['string', 'null'] };
const nnum = { type: ['number', 'null'] };
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const obj = (properties: Record<string, unknown>, required = Object.keys(properties), extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
  ...extra,
});

export const SCHEMAS: Record<string, Schema> = {
  Geo: obj({
    country: { ...nstr, description: 'Full country name.' },
    country_code: { ...nstr, description: 'ISO 3166-1 alpha-2.' },
    region: nstr,
    city: nstr,
    latitude: { ...nnum, description: 'Decimal degrees.' },
    longitude: nnum,
    timezone: { ...nstr, description: 'IANA time-zone name.' },
  }),
  Network: obj({
    asn: { ...int, description: '0 when none (bogon).' },
    as_org: str,
    is_announced: bool,
    is_bogon: bool,
    rpki: { type: ['string', 'null'], enum: ['valid', 'invalid', 'not-found', 'unknown', null] },
    allocation_date: { ...nstr, description: 'YYYY-MM-DD.' },
    allocation_age_days: { type: ['integer', 'null'] },
    registration_country: nstr,
  }),
  Signals: obj({
    connection_type: { type: 'string', enum: ['datacenter', 'satellite', 'mobile', 'isp', 'unknown'] },
    is_datacenter: bool,
    datacenter_provider: nstr,
    relay_provider: nstr,
    is_relay: bool,
    is_tor: bool,
    is_vpn: bool,
    vpn_operator: { ...nstr, description: 'The VPN operator a per-server list names, when is_vpn.' },
    is_proxy: bool,
    is_public_resolver: bool,
    is_drop_listed: bool,
    recent_abuse: bool,
    is_verified_bot: bool,
    verified_bot_name: nstr,
    is_anycast: bool,
  }),
  EvidenceLabel: {
    type: 'string',
    enum: ['authoritative', 'inferred', 'beta', 'unavailable'],
    description: '`unavailable`: the snapshot has no source for the signal (docs/scoring.md).',
  },
  Evidence: obj(
    Object.fromEntries(
      ['connection_type', 'tor', 'vpn', 'proxy', 'verified_bot', 'relay', 'routing', 'allocation', 'drop_listed', 'recent_abuse', 'public_resolver'].map(
        (k) => [k, ref('EvidenceLabel')],
      ),
    ),
  ),
  Risk: obj({
    score: { type: 'integer', minimum: 0, maximum: 100 },
    level: { type: 'string', enum: ['low', 'medium', 'high'] },
    reasons: {
      type: 'array',
      items: {
        type: 'string',
        enum: ['is_tor', 'is_proxy', 'is_datacenter', 'is_vpn', 'is_drop_listed', 'recent_abuse', 'is_relay', 'benign_network_kind'],
      },
    },
  }),
  CheckResult: obj({
    ip: { ...str, description: 'The address checked, canonical (IPv4-mapped IPv6 as IPv4).' },
    version: { type: 'integer', enum: [4, 6] },
    geo: ref('Geo'),
    network: ref('Network'),
    signals: ref('Signals'),
    evidence: ref('Evidence'),
    risk: ref('Risk'),
    attribution: { ...str, description: 'Link to the data attributions.' },
    explanation: { ...ref('Explanation'), description: 'Only with explain=1: why each field has its value.' },
  }, ['ip', 'version', 'geo', 'network', 'signals', 'evidence', 'risk', 'attribution']),
  ExplanationSource: obj({
    source: { ...str, description: 'Source row id, as in /attribution and `ipintel info`.' },
    data_date: { ...nstr, description: "The source's data date." },
    role: { ...str, description: 'The role the source plays for the rule (tor, vpnBroad, routes, asnTags, ...).' },
    matched: { ...str, description: 'Longest matching prefix (CIDR), ASN table range (first-last), or ASN (AS123).' },
    value: { description: 'What the source says there (a name, a tag, route origins), or null.' },
  }),
  ExplanationField: obj({
    field: { ...str, description: 'Path in the native result: geo, network.asn, signals.is_vpn, ...' },
    value: { description: "The field's value in this result." },
    rule: { ...str, description: 'Id of the precedence rule that decided (docs/data.md, "Precedence rules").' },
    rule_text: str,
    sources: { type: 'array', items: ref('ExplanationSource'), description: 'The sources the rule read that hold the address, the deciding one first.' },
  }),
  Explanation: obj({
    build_date: { ...str, description: 'Build date of the snapshot the explain sidecar belongs to.' },
    fields: { type: 'array', items: ref('ExplanationField') },
  }),
  ThirdPartyPrivacy: obj(
    { vpn: bool, proxy: bool, tor: bool, relay: bool, hosting: bool, service: str },
    undefined,
    { description: '`service`: the relay provider, else the datacenter provider, else "" (the VPN operator is in the native result\'s `signals.vpn_operator`).' },
  ),
  ThirdPartyResult: obj(
    {
      ip: str,
      city: str,
      region: str,
      country: { ...str, description: 'ISO country code.' },
      loc: { ...str, description: '"<latitude>,<longitude>".' },
      org: { ...str, description: '"AS<asn> <as_org>"; omitted without an ASN.' },
      timezone: str,
      bogon: { type: 'boolean', enum: [true], description: 'Present only for a non-public address.' },
      anycast: { type: 'boolean', enum: [true], description: 'Present only for an anycast address.' },
      privacy: ref('ThirdPartyPrivacy'),
    },
    ['ip', 'privacy'],
    { description: 'Compatibility layout (format=thirdparty). Fields the data lacks are omitted.' },
  ),
  BatchError: obj({
    ip: { ...str, description: 'The element as given (a non-string element as its JSON text).' },
    error: obj({ code: { type: 'string', enum: ['invalid_ip'] }, message: str }),
  }),
  ThirdPartyBatchResponse: {
    type: 'object',
    description: 'Each path of the request as a key (a path given twice is one key); the value is the whole result, the field value ("" when the data lacks it), or an error in place.',
    additionalProperties: {
      anyOf: [
        ref('ThirdPartyResult'),
        str,
        bool,
        ref('ThirdPartyPrivacy'),
        obj({ error: obj({ code: { type: 'string', enum: ['invalid_ip', 'missing_ip', 'not_found'] }, message: str }) }),
      ],
    },
  },
  BatchRequest: obj(
    {
      ips: { type: 'array', maxItems: 100, items: { type: 'string' }, description: 'At most 100 addresses; answers come in this order.' },
      format: { type: 'string', enum: ['native', 'thirdparty'] },
    },
    ['ips'],
  ),
  BatchResponse: obj({
    results: { type: 'array', items: { anyOf: [ref('CheckResult'), ref('ThirdPartyResult'), ref('BatchError')] } },
  }),
  Problem: obj(
    {
      type: { ...str, description: 'URI identifying the problem type: urn:ipintel:problem:<code>.' },
      title: str,
      status: int,
      detail: str,
      code: { type: 'string', enum: Object.keys(PROBLEMS) },
    },
    ['type', 'title', 'status', 'detail', 'code'],
    { description: 'RFC 9457 problem details (application/problem+json).' },
  ),
  Health: obj({
    status: { type: 'string', enum: ['ok', 'unavailable'] },
    snapshot: obj({
      loaded: bool,
      build_date: nstr,
      format_version: { type: ['integer', 'null'] },
      loaded_at: nstr,
      age_s: { type: ['integer', 'null'], description: 'Seconds since the build date, at the server clock.' },
      stale_sources: { type: 'array', items: str, description: 'Sources older than their refresh interval (data date + interval before now).' },
    }),
    store: obj({ kind: str, status: { type: 'string', enum: ['ok', 'unavailable'] } }),
  }),
  Attribution: obj({
    build_date: str,
    sources: {
      type: 'array',
      items: obj({
        id: str,
        publisher: str,
        url: str,
        licence: str,
        licence_url: nstr,
        attribution_required: bool,
        data_date: nstr,
      }),
    },
  }),
};
