/**
 * Record tables: turns table rows into the frozen sub-objects of a result,
 * each built once on first use and shared by every result that needs it.
 * Network objects hold `allocation_age_days`, which depends on the day of the
 * lookup, so their cache is dropped when the UTC day changes.
 *
 * The caches are flat arrays indexed by row id (and the pair slots by
 * network/signal pair), allocated when the snapshot is opened (~11 MB for a
 * world snapshot: 8-byte pointers, Node has no pointer compression): paging
 * them to allocate on first use, a per-leaf answer slot holding all of a
 * leaf's parts, and one object per network/signal pair holding the pair's
 * parts were measured and dropped (docs/design.md).
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
  routingInferred,
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

/**
 * The key of an evidence object: 2 x signal set + 1 when the network's
 * routing is inferred (the only inputs of its labels). The signal set is
 * `key >>> 1`.
 */
export function evidenceKey(sig: number, inferred: boolean): number {
  return 2 * sig + (inferred ? 1 : 0);
}

/** The parts of a result decided by its evidence key (signal set and routing flag). */
export interface SigEvidence {
  readonly signals: Signals;
  readonly evidence: Evidence;
  readonly risk: Risk;
}

/**
 * How many leaves (the largest: ids 0..) get answer slots, 3 pointers each
 * (3 MB). On the world snapshot the first 2^17 leaves hold over 90% of the
 * IPv4 space; 2^16, 2^18 and 2^20 were measured too (docs/design.md,
 * "Eleventh round").
 */
export const HOT_LEAVES = 1 << 17;

/**
 * The most leaves at the end of the id space that get answer slots once
 * IPv6 is used ({@link RecordTables.giveTailSlots}), 3 pointers each: 2^19
 * (12 MB); the world snapshot's leaves only IPv6 reaches are ~488,000.
 */
export const TAIL_LEAVES = 1 << 19;

export class RecordTables {
  private readonly c: DecodedSnapshot['columns'];
  private readonly decoder = new TextDecoder();
  /** Decoded strings, filled as sub-objects are built (a Map: most ids are never needed). */
  private readonly strings = new Map<number, string>();
  private readonly geoCache: (Geo | undefined)[];
  private readonly sigCache: (SignalParts | undefined)[];
  private netCache: (Network | undefined)[];
  /**
   * Signals, evidence and risk per evidence key ({@link evidenceKey}: the
   * signal set and the network's routing flag, on which nothing else of
   * them depends).
   */
  private readonly sigEv: (SigEvidence | undefined)[];
  /**
   * Per network/signal pair p: [2p] its network object, [2p + 1] its
   * SigEvidence; filled by {@link fillPair}, dropped with the day's network
   * objects. A check reads both in one line, right after the leaf's ids
   * (docs/design.md, "Tenth round"); read by IpIntel's result assembly.
   */
  pairSlots: unknown[];
  /**
   * Leaves with ids below this get an answer slot ({@link leafSlots}): the
   * writer numbers leaves most address space first, so these few hold most
   * of the space a check lands in (docs/design.md, "Eleventh round").
   */
  readonly hotLeaves: number;
  /**
   * Per hot leaf l: [3l] its geo object, [3l + 1] its network object,
   * [3l + 2] its SigEvidence; filled by {@link fillSlots}, dropped with the
   * day's network objects. A check of a hot leaf reads one line of these
   * right after the index, and not the leaf's ids.
   */
  leafSlots: unknown[];
  /**
   * Leaves `tailFrom .. tailFrom + tailCount - 1` get answer slots too
   * ({@link tailSlots}, laid out as {@link leafSlots}, by leaf - tailFrom):
   * the leaves only IPv6 reaches, which the writer numbers last, so no IPv6
   * address lands on a hot leaf. None until {@link giveTailSlots} (the
   * first IPv6 check).
   */
  tailFrom = 0;
  tailCount = 0;
  tailSlots: unknown[] = [];
  /** The UTC day the network objects and slots hold; none before the first call (any day, 1969 too, is new). */
  private netDay = Number.NEGATIVE_INFINITY;
  private readonly countryNames: Readonly<Record<string, string>>;
  private readonly evidence: EvidenceTable;

  constructor(decoded: DecodedSnapshot) {
    this.c = decoded.columns;
    this.evidence = new EvidenceTable(decoded.meta.unavailable ?? []);
    this.countryNames = decoded.meta.country_names;
    this.geoCache = new Array<Geo | undefined>(this.c['geo.country_code'].length);
    this.sigCache = new Array<SignalParts | undefined>(this.c['sig.flags'].length);
    this.netCache = new Array<Network | undefined>(this.c['net.asn'].length);
    this.sigEv = new Array<SigEvidence | undefined>(2 * this.c['sig.flags'].length);
    this.pairSlots = new Array<unknown>(2 * this.c['pair.net'].length);
    this.hotLeaves = Math.min(this.c['leaf.ids'].length / 3, HOT_LEAVES);
    this.leafSlots = new Array<unknown>(3 * this.hotLeaves);
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

  /** The signals, evidence and risk of evidence key `k`. */
  private sigEvidenceAt(k: number): SigEvidence {
    let x = this.sigEv[k];
    if (x === undefined) {
      const s = this.signalParts(k >>> 1);
      x = { signals: s.signals, evidence: this.evidence.get(s.connection, (k & 1) === 1 ? 'inferred' : 'authoritative'), risk: s.risk };
      this.sigEv[k] = x;
    }
    return x;
  }

  /**
   * Fills pair `pair`'s slots as of UTC day `today` (the caller has called
   * {@link day}): its network object, and the parts its evidence key decides.
   */
  fillPair(pair: number, today: number): void {
    const c = this.c;
    const net = c['pair.net'][pair]!;
    const key = evidenceKey(c['pair.sig'][pair]!, routingInferred(c['net.flags'], net));
    this.pairSlots[2 * pair] = this.network(net, today);
    this.pairSlots[2 * pair + 1] = this.sigEvidenceAt(key);
  }

  /**
   * Fills the answer slots `slots[at .. at + 2]` ({@link leafSlots} or
   * {@link tailSlots}) of a leaf with geo row `geo` and pair `pair`, as of
   * UTC day `today` (the caller has called {@link day}).
   */
  fillSlots(slots: unknown[], at: number, geo: number, pair: number, today: number): void {
    if (this.pairSlots[2 * pair] === undefined) this.fillPair(pair, today);
    slots[at] = this.geo(geo);
    slots[at + 1] = this.pairSlots[2 * pair];
    slots[at + 2] = this.pairSlots[2 * pair + 1];
  }

  /**
   * Gives answer slots to the leaves from `from` to the last (at most
   * {@link TAIL_LEAVES} of them, the first ones: most IPv6 space), above the
   * hot ones. Called once, with the start of the leaves only IPv6 reaches
   * (V6Index#reachedTailFrom): 11.7 MB for the world snapshot's.
   */
  giveTailSlots(from: number): void {
    const leaves = this.c['leaf.ids'].length / 3;
    this.tailFrom = Math.max(from, this.hotLeaves);
    this.tailCount = Math.max(0, Math.min(leaves - this.tailFrom, TAIL_LEAVES));
    this.tailSlots = new Array<unknown>(3 * this.tailCount);
  }

  /** Drops the day's network objects when `today` is a new day. */
  day(today: number): void {
    if (today !== this.netDay) this.newDay(today);
  }

  /**
   * Network objects hold the age of the allocation: a new UTC day drops them.
   * The first day keeps the constructor's empty arrays (allocating them again
   * cost every load ~4 MB of fresh memory for nothing).
   */
  private newDay(today: number): void {
    if (this.netDay !== Number.NEGATIVE_INFINITY) {
      this.netCache = new Array<Network | undefined>(this.netCache.length);
      this.pairSlots = new Array<unknown>(this.pairSlots.length);
      this.leafSlots = new Array<unknown>(this.leafSlots.length);
      this.tailSlots = new Array<unknown>(this.tailSlots.length);
    }
    this.netDay = today;
  }

  /** The network object of row `i` as of UTC day `today` (days since 1970-01-01). */
  private network(i: number, today: number): Network {
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
