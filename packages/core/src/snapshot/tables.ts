/**
 * Record tables: turns table rows into the frozen sub-objects of a result,
 * each built once on first use and shared by every result that needs it.
 * Network objects hold `allocation_age_days`, which depends on the day of the
 * lookup, so their cache is dropped when the UTC day changes.
 *
 * The caches are flat arrays indexed by row id, allocated when the snapshot
 * is opened (7.5 MB for a world snapshot): paging them to allocate on first
 * use, a per-leaf answer slot holding all of a leaf's parts, and one object
 * per network/signal pair holding the pair's parts were measured and dropped
 * (docs/design.md).
 *
 * @module
 */
import { isoDay } from '../clock.js';
import { EvidenceTable } from '../result/evidence.js';
import { scoreSignals } from '../result/score.js';
import type { Evidence, EvidenceLabel, Geo, Network, Risk, Signals } from '../types.js';
import type { DecodedSnapshot } from './decode.js';
import {
  CONNECTION_CODES,
  EVIDENCE_CODES,
  NET_ANNOUNCED,
  NET_BOGON,
  NULL_DAY,
  NULL_STRING,
  NULL_STRING16,
  RPKI_CODES,
  SIG_ABUSE,
  SIG_ANYCAST,
  SIG_BOT,
  SIG_DROP,
  SIG_PROXY,
  SIG_RELAY,
  SIG_RESOLVER,
  SIG_TOR,
  SIG_VPN,
} from './format.js';

/** Coordinates keep 4 decimals: the precision DB-IP publishes (the stored float32 adds noise beyond it). */
export function coordinate(x: number): number | null {
  return Number.isNaN(x) ? null : Math.round(x * 1e4) / 1e4;
}

/** Per-signal-set parts of a result: all depend only on the set. */
export interface SignalParts {
  readonly signals: Signals;
  /** The label of connection_type (the evidence object also depends on the network row). */
  readonly connection: EvidenceLabel;
  readonly risk: Risk;
}

export class RecordTables {
  private readonly c: DecodedSnapshot['columns'];
  private readonly decoder = new TextDecoder();
  /** Decoded strings, filled as sub-objects are built (a Map: most ids are never needed). */
  private readonly strings = new Map<number, string>();
  private readonly geoCache: (Geo | undefined)[];
  private readonly sigCache: (SignalParts | undefined)[];
  private netCache: (Network | undefined)[];
  /**
   * The same network objects by network/signal pair: a check finds its
   * network from the leaf's pair in one read, where the network row's slot
   * waited for the pair's row to be read first (docs/design.md, "Tenth round").
   */
  private pairNetCache: (Network | undefined)[];
  /**
   * Evidence per signal set and routing flag (index 2 * set + 1 when the
   * network's routing is inferred): the labels depend on nothing else.
   */
  private readonly sigEvidence: (Evidence | undefined)[];
  private netDay = -1;
  private readonly countryNames: Readonly<Record<string, string>>;
  private readonly evidence: EvidenceTable;

  constructor(decoded: DecodedSnapshot) {
    this.c = decoded.columns;
    this.evidence = new EvidenceTable(decoded.meta.unavailable ?? []);
    this.countryNames = decoded.meta.country_names;
    this.geoCache = new Array<Geo | undefined>(this.c['geo.country_code'].length);
    this.sigCache = new Array<SignalParts | undefined>(this.c['sig.flags'].length);
    this.netCache = new Array<Network | undefined>(this.c['net.asn'].length);
    this.pairNetCache = new Array<Network | undefined>(this.c['pair.net'].length);
    this.sigEvidence = new Array<Evidence | undefined>(2 * this.c['sig.flags'].length);
  }

  str(id: number): string | null {
    if (id === NULL_STRING) return null;
    let s = this.strings.get(id);
    if (s === undefined) {
      const o = this.c['str.offsets'];
      s = this.decoder.decode(this.c['str.bytes'].subarray(o[id], o[id + 1]));
      this.strings.set(id, s);
    }
    return s;
  }

  /** A string from a u16 column. */
  str16(id: number): string | null {
    return id === NULL_STRING16 ? null : this.str(id);
  }

  geo(i: number): Geo {
    let g = this.geoCache[i];
    if (g === undefined) {
      const c = this.c;
      const code = this.str16(c['geo.country_code'][i]!);
      g = Object.freeze({
        country: code === null ? null : (this.countryNames[code] ?? null),
        country_code: code,
        region: this.str(c['geo.region'][i]!),
        city: this.str(c['geo.city'][i]!),
        latitude: coordinate(c['geo.latitude'][i]!),
        longitude: coordinate(c['geo.longitude'][i]!),
        timezone: this.str16(c['geo.timezone'][i]!),
      });
      this.geoCache[i] = g;
    }
    return g;
  }

  /** The evidence object of key `k` (pairs.ts's `evidenceKey`: signal set and routing flag) whose signal set's parts are `s`. */
  evidenceAt(k: number, s: SignalParts): Evidence {
    let e = this.sigEvidence[k];
    if (e === undefined) {
      e = this.evidence.get(s.connection, (k & 1) === 1 ? 'inferred' : 'authoritative');
      this.sigEvidence[k] = e;
    }
    return e;
  }

  /** Network objects hold the age of the allocation: a new UTC day drops them. */
  private newDay(today: number): void {
    this.netCache = new Array<Network | undefined>(this.netCache.length);
    this.pairNetCache = new Array<Network | undefined>(this.pairNetCache.length);
    this.netDay = today;
  }

  /** The network object of row `i` as of UTC day `today` (days since 1970-01-01). */
  network(i: number, today: number): Network {
    if (today !== this.netDay) this.newDay(today);
    let n = this.netCache[i];
    if (n === undefined) {
      const c = this.c;
      const flags = c['net.flags'][i]!;
      const day = c['net.allocation_day'][i]!;
      n = Object.freeze({
        asn: c['net.asn'][i]!,
        as_org: this.str(c['net.as_org'][i]!) ?? '',
        is_announced: (flags & NET_ANNOUNCED) !== 0,
        is_bogon: (flags & NET_BOGON) !== 0,
        rpki: RPKI_CODES[c['net.rpki'][i]!]!,
        allocation_date: day === NULL_DAY ? null : isoDay(day),
        allocation_age_days: day === NULL_DAY ? null : Math.max(0, today - day),
        registration_country: this.str(c['net.registration_country'][i]!),
      });
      this.netCache[i] = n;
    }
    return n;
  }

  /** The network object of pair `pair`, whose network row is `rows[2 * pair]` (pairs.ts), as of UTC day `today`. */
  pairNetwork(pair: number, rows: Uint32Array, today: number): Network {
    if (today !== this.netDay) this.newDay(today);
    let n = this.pairNetCache[pair];
    if (n === undefined) {
      n = this.network(rows[2 * pair]!, today);
      this.pairNetCache[pair] = n;
    }
    return n;
  }

  signalParts(i: number): SignalParts {
    let p = this.sigCache[i];
    if (p === undefined) {
      const c = this.c;
      const f = c['sig.flags'][i]!;
      const connection = CONNECTION_CODES[c['sig.connection_type'][i]!]!;
      const signals: Signals = Object.freeze({
        connection_type: connection,
        is_datacenter: connection === 'datacenter',
        datacenter_provider: this.str(c['sig.datacenter_provider'][i]!),
        relay_provider: this.str(c['sig.relay_provider'][i]!),
        is_relay: (f & SIG_RELAY) !== 0,
        is_tor: (f & SIG_TOR) !== 0,
        is_vpn: (f & SIG_VPN) !== 0,
        vpn_operator: this.str(c['sig.vpn_operator'][i]!),
        is_proxy: (f & SIG_PROXY) !== 0,
        is_public_resolver: (f & SIG_RESOLVER) !== 0,
        is_drop_listed: (f & SIG_DROP) !== 0,
        recent_abuse: (f & SIG_ABUSE) !== 0,
        is_verified_bot: (f & SIG_BOT) !== 0,
        verified_bot_name: this.str(c['sig.verified_bot_name'][i]!),
        is_anycast: (f & SIG_ANYCAST) !== 0,
      });
      p = {
        signals,
        connection: EVIDENCE_CODES[c['sig.connection_evidence'][i]!]!,
        risk: scoreSignals(signals),
      };
      this.sigCache[i] = p;
    }
    return p;
  }
}
