/**
 * Public result shapes. Field names follow the specification (snake_case in
 * results, because they are the wire format of the HTTP API as well).
 *
 * @module
 */

/** Evidence label: how directly a signal is observed. A transparency label, not a probability. */
/**
 * `unavailable`: the snapshot has no source for the signal (docs/scoring.md),
 * so its value is the default (false, null) and claims nothing.
 */
export type EvidenceLabel = 'authoritative' | 'inferred' | 'beta' | 'unavailable';

/** How an address connects. `unknown` = not announced or bogon (docs/data.md, "connection_type"). */
export type ConnectionType = 'datacenter' | 'satellite' | 'mobile' | 'isp' | 'unknown';

/** RFC 6811 origin validation; `unknown` when the snapshot holds no ROA set. */
export type RpkiStatus = 'valid' | 'invalid' | 'not-found' | 'unknown';

export type RiskLevel = 'low' | 'medium' | 'high';

/** Reasons in the order of the weights table (PRODUCT.md section 4). */
export type RiskReason =
  | 'is_tor'
  | 'is_proxy'
  | 'is_datacenter'
  | 'is_vpn'
  | 'is_drop_listed'
  | 'recent_abuse'
  | 'is_relay'
  | 'benign_network_kind';

export interface Geo {
  /** Full country name (ISO 3166 short name). */
  readonly country: string | null;
  /** ISO 3166-1 alpha-2 code. */
  readonly country_code: string | null;
  readonly region: string | null;
  readonly city: string | null;
  /** Decimal degrees, 4 decimals (the precision the source publishes). */
  readonly latitude: number | null;
  readonly longitude: number | null;
  /** IANA time-zone name, e.g. `Europe/Paris`. */
  readonly timezone: string | null;
}

export interface Network {
  /** Origin AS number; 0 when there is none (bogon, or no AS data). */
  readonly asn: number;
  /** AS organisation name; `""` when `asn` is 0. */
  readonly as_org: string;
  readonly is_announced: boolean;
  readonly is_bogon: boolean;
  /** `null` for a bogon. */
  readonly rpki: RpkiStatus | null;
  /** `YYYY-MM-DD`, or `null` when no RIR record covers the address. */
  readonly allocation_date: string | null;
  /** Whole days from `allocation_date` to the day of the lookup (UTC). */
  readonly allocation_age_days: number | null;
  /** ISO 3166-1 alpha-2 code of the RIR registration. */
  readonly registration_country: string | null;
}

export interface Signals {
  readonly connection_type: ConnectionType;
  /** Always equal to `connection_type === 'datacenter'`. */
  readonly is_datacenter: boolean;
  readonly datacenter_provider: string | null;
  readonly relay_provider: string | null;
  readonly is_relay: boolean;
  readonly is_tor: boolean;
  readonly is_vpn: boolean;
  /** The VPN operator a per-server list names (e.g. `Mullvad`), when `is_vpn`; else null. */
  readonly vpn_operator: string | null;
  readonly is_proxy: boolean;
  readonly is_public_resolver: boolean;
  readonly is_drop_listed: boolean;
  readonly recent_abuse: boolean;
  readonly is_verified_bot: boolean;
  readonly verified_bot_name: string | null;
  /** The address is in a range its operator announces anycast (published CDN edges, docs/data.md). */
  readonly is_anycast: boolean;
}

export interface Evidence {
  readonly connection_type: EvidenceLabel;
  readonly tor: EvidenceLabel;
  readonly vpn: EvidenceLabel;
  readonly proxy: EvidenceLabel;
  readonly verified_bot: EvidenceLabel;
  readonly relay: EvidenceLabel;
  readonly routing: EvidenceLabel;
  readonly allocation: EvidenceLabel;
  readonly drop_listed: EvidenceLabel;
  readonly recent_abuse: EvidenceLabel;
  readonly public_resolver: EvidenceLabel;
}

export interface Risk {
  /** Integer 0..100. */
  readonly score: number;
  readonly level: RiskLevel;
  readonly reasons: readonly RiskReason[];
}

/** The native result (spec 2.1). Sub-objects are shared and frozen. */
export interface CheckResult {
  /** The address checked, in canonical form (RFC 5952 for IPv6; IPv4-mapped IPv6 as IPv4). */
  readonly ip: string;
  readonly version: 4 | 6;
  readonly geo: Geo;
  readonly network: Network;
  readonly signals: Signals;
  readonly evidence: Evidence;
  readonly risk: Risk;
  /** Link to the page listing the data sources that require attribution. */
  readonly attribution: string;
  /** Present only when asked for (`check(ip, { explain: true })`): why each field has its value. */
  readonly explanation?: Explanation;
}

/** What one source said at the address, as an explanation names it. */
export interface ExplanationSource {
  /** The source row's id (as in `info.sources`). */
  readonly source: string;
  /** The source's data date (`info.sources[].data_date`). */
  readonly data_date: string | null;
  /** The role the source plays for the rule (e.g. `tor`, `vpnBroad`, `routes`, `roas`, `asnTags`: docs/api.md, "Explain"). */
  readonly role: string;
  /**
   * Where the source holds the address: the longest matching prefix
   * (`185.220.101.0/24`), an ASN table range (`8.8.8.0-8.8.8.255`), for a
   * list of ASNs the ASN (`AS13335`), for the ROA set the route it validated.
   */
  readonly matched: string;
  /** What the source says there (a name, a tag, route origins), or null for a plain listing. */
  readonly value: unknown;
}

/** One field of the result and why it has its value. */
export interface ExplanationField {
  /** Path in the native result: `geo`, `network.asn`, `signals.is_vpn`, ... */
  readonly field: string;
  readonly value: unknown;
  /** The precedence rule that decided (docs/data.md, "Precedence rules"). */
  readonly rule: string;
  readonly rule_text: string;
  /** The sources the rule read that hold the address, the deciding one first; empty when none does. */
  readonly sources: readonly ExplanationSource[];
}

export interface Explanation {
  /** The snapshot build the explain sidecar belongs to. */
  readonly build_date: string;
  readonly fields: readonly ExplanationField[];
}

/** The compatibility shape (spec 2.7, PRODUCT.md section 5). Absent fields are omitted. */
export interface ThirdPartyResult {
  readonly ip: string;
  readonly city?: string;
  readonly region?: string;
  /** ISO country code. */
  readonly country?: string;
  /** `"<latitude>,<longitude>"`. */
  readonly loc?: string;
  /** `"AS<asn> <as_org>"`; omitted when there is no ASN. */
  readonly org?: string;
  readonly timezone?: string;
  /** Present (true) only for a non-public address. */
  readonly bogon?: true;
  /** Present (true) only for an anycast address. */
  readonly anycast?: true;
  readonly privacy: {
    readonly vpn: boolean;
    readonly proxy: boolean;
    readonly tor: boolean;
    readonly relay: boolean;
    readonly hosting: boolean;
    /** Relay provider, else datacenter provider, else `""` (PRODUCT.md section 5; the VPN operator is `signals.vpn_operator`). */
    readonly service: string;
  };
}

export type ResultFormat = 'native' | 'thirdparty';

export interface CheckOptions<F extends ResultFormat = ResultFormat> {
  /** `native` (default) or `thirdparty`. */
  readonly format?: F;
  /**
   * Add `explanation` to a native result (the `thirdparty` format ignores it).
   * Loads the explain sidecar on first use; throws `explain_unavailable`,
   * `explain_mismatch` or `explain_corrupt` (docs/api.md).
   */
  readonly explain?: boolean;
}

/** One failed element of a batch, carried in place of its result. */
export interface BatchError {
  /**
   * The input as given. A non-string is shown without running its own code:
   * `String(value)` for a number, boolean, bigint, `null` or `undefined`;
   * `[object]`, `[function]` or `[symbol]` otherwise.
   */
  readonly ip: string;
  readonly error: { readonly code: string; readonly message: string };
}

/** Which prefix answered a lookup: every address in it gets the same answer, so callers may cache by it. */
export interface MatchInfo {
  readonly ip: string;
  readonly version: 4 | 6;
  /** The largest CIDR block around the address whose addresses all get the same result. */
  readonly prefix: string;
  readonly prefix_length: number;
}

/** One data source the snapshot was built from. */
export interface SourceInfo {
  readonly id: string;
  readonly publisher: string;
  readonly url: string;
  readonly licence: string;
  /** Whether results built from this source must show attribution. */
  readonly attribution_required: boolean;
  /** Date of the data (`YYYY-MM-DD` or ISO timestamp), as the publisher states it. */
  readonly data_date: string | null;
  /** Entries read from the source. */
  readonly entries: number;
  /**
   * How often the publisher refreshes the source (`12h`, `1d`, `7d`, ...):
   * older than its data date plus this, the source is stale (see freshness()).
   * Absent in snapshots written before the field existed.
   */
  readonly refresh?: string;
  /** Evidence class of the source, when it feeds a signal. */
  readonly evidence?: EvidenceLabel;
  /** Free-text notes (re-processed copies, known gaps). */
  readonly note?: string;
}

export interface SnapshotInfo {
  readonly format_version: number;
  /** ISO timestamp: SOURCE_DATE_EPOCH at build, else the newest source date. */
  readonly build_date: string;
  readonly attribution_url: string;
  readonly sources: readonly SourceInfo[];
  readonly counts: {
    readonly ipv4_ranges: number;
    readonly ipv6_ranges: number;
    readonly leaves: number;
    readonly geo_records: number;
    readonly network_records: number;
    readonly signal_sets: number;
  };
  /** Whether the snapshot carries a ROA set (else `rpki` is `unknown`). */
  readonly has_rpki: boolean;
  /** Evidence keys the snapshot has no source for: results label them `unavailable`. */
  readonly unavailable: readonly (keyof Evidence)[];
}
