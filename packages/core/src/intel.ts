/**
 * `IpIntel`: a loaded snapshot that answers checks. Pure: it works on the bytes
 * it was given, in any JS runtime.
 *
 * @module
 */
import { IpIntelError, invalidIp, quoteInput } from './errors.js';
import { checkLoadOptions, type LoadOptions } from './load-options.js';
import { batchElements, batchIterable, echoOf, explainOf, formatOf } from './call-options.js';
import { addressToBigInt, bigIntToText, parseAddress } from './ip/address.js';
import { formatIPv4, formatIPv6 } from './ip/format.js';
import { IPV6_CANONICAL, MAX_IPV4_LENGTH, isV4Mapped, parseIPv4, parseIPv6, rejectionReason } from './ip/parse.js';
import { decodeSidecar } from './explain/decode.js';
import { Explainer } from './explain/explain.js';
import { snapshotIdentity } from './explain/format.js';
import { toThirdParty } from './result/thirdparty.js';
import { checkDecoded, decodeSnapshot, type DecodedSnapshot, type Inflate, type MainColumns } from './snapshot/decode.js';
import type { Checksum } from './snapshot/checksum.js';
import { frozenMeta, shareDecoded, type SharedAlloc, type SharedSnapshot } from './shared.js';
import { leafGeo, leafPair } from './snapshot/format.js';
import { RangeIndex } from './snapshot/lookup.js';
import type { V4Index } from './snapshot/v4-index.js';
import { todayOf } from './clock.js';
import { RecordTables, type SigEvidence } from './snapshot/tables.js';
import { RecordCells } from './snapshot/cells.js';

/** Addresses per stage of checkBatch (see checkGroup). */
const BATCH_STAGE = 256;
import type {
  BatchError,
  CheckOptions,
  CheckResult,
  Geo,
  MatchInfo,
  Network,
  ResultFormat,
  SnapshotInfo,
  ThirdPartyResult,
} from './types.js';

// The load options live with their checks (load-options.ts); re-exported where callers have always found them.
export type { LoadOptions } from './load-options.js';

/**
 * Key of the view tools get through `@ipintel/core/internal`: a symbol the
 * public entry does not export (a plain property read on the hot path of the
 * tools that use it). `Symbol.for`, so that the CommonJS build, which gives
 * each entry its own copy of this module, still agrees on the key.
 */
export const INTERNAL: unique symbol = Symbol.for('ipintel.internal');

/** What `@ipintel/core/internal` reads of a loaded snapshot (see internal.ts). */
export interface IntelInternals {
  /** The index; its `arrays4` and `v6.columns` are what snapshot/walk.ts walks (`v6` decodes on first use). */
  readonly index: RangeIndex;
  readonly leafCount: number;
  /** Record ids of a leaf into out[at..at+2]: geo row, network row, signal set. */
  records(leaf: number, out: Uint32Array, at: number): void;
  /** Network/signal pairs (valid pair ids are 0..pairCount-1). */
  readonly pairCount: number;
  /** A leaf's geo row and network/signal pair into out[at], out[at+1]: one read of the leaf's ids. */
  geoPair(leaf: number, out: Uint32Array, at: number): void;
  /** A pair's network row and signal set into out[at], out[at+1]. */
  pairRecords(pair: number, out: Uint32Array, at: number): void;
  /** The native result of a leaf, with the given address text. */
  assemble(leaf: number, ip: string, version: 4 | 6): CheckResult;
  /** Record fields as CSV cell bytes (snapshot/cells.ts), made on first use. */
  cells(): RecordCells;
  /** The decoded columns (the IPv6 index's only once decoded): for readers of the layout that copy them, such as the CLI's batch kernel. */
  readonly columns: MainColumns;
  /** share() with each column copied into memory from `alloc` (not kept: each call copies). */
  shareInto(alloc: SharedAlloc): SharedSnapshot;
}

/** Largest CIDR block holding `addr` that lies inside [start, end]. */
function blockWithin(bits: number, addr: bigint, start: bigint, end: bigint): number {
  for (let len = 0; len <= bits; len++) {
    const size = 1n << BigInt(bits - len);
    const first = addr - (addr % size);
    if (first >= start && first + size - 1n <= end) return len;
  }
  return bits;
}

export class IpIntel {
  private readonly index: RangeIndex;
  /**
   * The index's IPv4 part, read directly by an IPv4 check (one field read
   * fewer than through `index`) and by `leafOfIPv4` (leaves.ts reads it by
   * this name: see there). Declared, not defined (`declare`: TypeScript
   * emits no field definition), so the constructor's one assignment is the
   * only value it ever holds and V8 treats it as a constant, as V4Index's
   * fields (snapshot/v4-index.ts says why).
   */
  private declare readonly v4: V4Index;
  private readonly tables: RecordTables;
  /** Per leaf: its geo row and network/signal pair (layout: leafGeo in snapshot/format.ts). */
  private readonly leafIds: Uint16Array;
  private readonly leafCount: number;
  private readonly pairNet: Uint32Array;
  private readonly pairSig: Uint32Array;
  private readonly scratch = new Uint32Array(4);
  /** Whether the leaves only IPv6 reaches have their answer slots (given on the first IPv6 check, or at load with `preload`). */
  private tailGiven = false;
  /** checkBatch's per-stage scratch (reused: a batch allocates only its results). */
  private readonly batchAddrs = new Uint32Array(BATCH_STAGE);
  private readonly batchLeaves = new Uint32Array(BATCH_STAGE);
  private readonly batchIsV4 = new Uint8Array(BATCH_STAGE);
  private readonly batchPairs = new Uint32Array(BATCH_STAGE);
  private readonly batchGeos = new Uint32Array(BATCH_STAGE);
  /** Today's UTC day: the shared cheap clock, or the caller's clock read on every call. */
  private readonly today: () => number;
  private readonly attribution: string;
  /** What the snapshot holds: build date, sources, counts. */
  readonly info: SnapshotInfo;
  private readonly decoded: DecodedSnapshot;
  private shared: SharedSnapshot | undefined;
  /** The explain sidecar's bytes or reader; decoded on the first explanation asked for. */
  private readonly explainSource: LoadOptions['explain'];
  private readonly inflate: Inflate | undefined;
  private explainer: Explainer | undefined;
  /** @internal For `@ipintel/core/internal` only; not part of the API. */
  readonly [INTERNAL]: unknown;

  /** Use {@link loadSnapshot} or `open()`; this takes an already decoded snapshot. */
  constructor(decoded: DecodedSnapshot, options: LoadOptions = {}) {
    // The meta is handed out by share() (and read by every explanation's check against the build):
    // frozen, so that a caller who changes what share() gave cannot change this object's answers.
    frozenMeta(decoded.meta);
    this.decoded = decoded;
    this.explainSource = options.explain;
    this.inflate = options.inflate;
    const c = decoded.columns;
    this.index = new RangeIndex({ v4Dir: c['v4.dir'], v4Blk: c['v4.blk'] }, decoded.v6);
    this.v4 = this.index.v4;
    // Preloaded: the IPv6 index (its jump table) is made now too, so that no call pays for it.
    if (options.preload === true) void this.index.v6;
    this.tables = new RecordTables(decoded);
    this.leafIds = c['leaf.ids'];
    this.leafCount = c['leaf.ids'].length / 3;
    if (options.preload === true) this.giveTail();
    this.pairNet = c['pair.net'];
    this.pairSig = c['pair.sig'];
    this.today = todayOf(options.now);
    const m = decoded.meta;
    this.attribution = options.attributionUrl ?? m.attribution_url;
    this.info = Object.freeze({
      format_version: m.format_version,
      build_date: m.build_date,
      attribution_url: this.attribution,
      sources: Object.freeze(m.sources.map((s) => Object.freeze({ ...s }))),
      counts: Object.freeze({
        // Counted on first read, not at load (a walk of the whole IPv4 index: docs/design.md, "Seventeenth round").
        get ipv4_ranges(): number {
          return decoded.ranges4();
        },
        ipv6_ranges: decoded.ranges6,
        leaves: c['leaf.ids'].length / 3,
        geo_records: c['geo.country_code'].length,
        network_records: c['net.asn'].length,
        signal_sets: c['sig.flags'].length,
      }),
      has_rpki: m.has_rpki === true,
      unavailable: Object.freeze([...(m.unavailable ?? [])]),
    });
    let cells: RecordCells | undefined;
    const internals: IntelInternals = {
      index: this.index,
      leafCount: this.leafCount,
      records: (leaf, out, at) => this.records(leaf, out, at),
      pairCount: this.pairNet.length,
      geoPair: (leaf, out, at) => {
        out[at] = leafGeo(this.leafIds, leaf);
        out[at + 1] = leafPair(this.leafIds, leaf);
      },
      pairRecords: (pair, out, at) => {
        out[at] = this.pairNet[pair]!;
        out[at + 1] = this.pairSig[pair]!;
      },
      assemble: (leaf, ip, version) => this.assemble(leaf, ip, version),
      cells: () => (cells ??= new RecordCells(decoded, this.tables)),
      columns: c,
      shareInto: (alloc) => shareDecoded(decoded, () => this.index.v6.columns, alloc),
    };
    this[INTERNAL] = internals;
  }

  /**
   * Checks one address. Throws `IpIntelError` `invalid_ip` for input that is
   * not an address, `invalid_format` for an unknown format and
   * `invalid_input` for options that are not an object (`null` and
   * `undefined` mean no options).
   *
   * @example
   * intel.check('8.8.8.8').network.asn // => 15169
   * intel.check('8.8.8.8', { format: 'thirdparty' }).org // => 'AS15169 Google LLC'
   */
  check(ip: string, options?: CheckOptions<'native'>): CheckResult;
  check(ip: string, options: CheckOptions<'thirdparty'>): ThirdPartyResult;
  check(ip: string, options?: CheckOptions): CheckResult | ThirdPartyResult;
  check(ip: string, options?: CheckOptions): CheckResult | ThirdPartyResult {
    const format = options === undefined ? 'native' : formatOf(options);
    // Read before the format decides: the thirdparty layout ignores explain (docs/api.md), not a wrong type of it.
    const explain = options !== undefined && explainOf(options);
    const result = this.checkNative(ip);
    if (format !== 'native') return toThirdParty(result);
    return explain ? this.explained(result) : result;
  }

  /**
   * Whether `check(ip, { explain: true })` can answer: the explain sidecar
   * is there, intact and of this snapshot. Loads it (once) to find out;
   * never throws for a missing or bad sidecar.
   *
   * @example
   * intel.canExplain() // => true when <snapshot>.explain belongs to it
   */
  canExplain(): boolean {
    try {
      this.loadExplainer();
      return true;
    } catch (e) {
      if (e instanceof IpIntelError && e.code.startsWith('explain_')) return false;
      throw e;
    }
  }

  /** The result with its explanation. */
  private explained(result: CheckResult): CheckResult {
    const a = parseAddress(result.ip);
    return { ...result, explanation: this.loadExplainer().explain(result, addressToBigInt(a), this.match(result.ip).prefix) };
  }

  /** The explainer, the sidecar decoded and checked against this snapshot on first use. */
  private loadExplainer(): Explainer {
    if (this.explainer === undefined) {
      if (this.explainSource === undefined) {
        throw new IpIntelError('explain_unavailable', 'no explain sidecar for this snapshot: build it with `ipintel build` (without --no-explain) and keep the .explain file next to the snapshot, or pass its bytes as the `explain` load option');
      }
      if (this.inflate === undefined) {
        // Only an instance made without an entry's loader (the constructor, fromSharedTrusted) lacks one.
        throw new IpIntelError('explain_unavailable', 'no inflater for the explain sidecar: pass the `inflate` load option (nodeInflate in Node)');
      }
      const bytes: unknown = typeof this.explainSource === 'function' ? this.explainSource() : this.explainSource;
      if (!(bytes instanceof Uint8Array)) throw new IpIntelError('invalid_input', `the explain load option's reader returned ${quoteInput(bytes)}, not a Uint8Array`);
      const sidecar = decodeSidecar(bytes, this.inflate, snapshotIdentity(this.decoded.meta));
      this.explainer = new Explainer(sidecar, this.info.sources, this.info.has_rpki);
    }
    return this.explainer;
  }

  /**
   * Checks many addresses, in input order. Never throws for one bad element,
   * whatever it is: it carries `{ ip, error: { code: 'invalid_ip', message } }`
   * in place (`ip` is the string as given; other values are shown by type,
   * see {@link BatchError}). Accepts any iterable; throws `invalid_input` when
   * `ips` is not one, and for options as {@link IpIntel.check} does.
   *
   * @example
   * intel.checkBatch(['1.1.1.1', 'nope']).map((r) => 'error' in r) // => [false, true]
   */
  checkBatch(ips: Iterable<unknown>, options?: CheckOptions<'native'>): (CheckResult | BatchError)[];
  checkBatch(ips: Iterable<unknown>, options: CheckOptions<'thirdparty'>): (ThirdPartyResult | BatchError)[];
  checkBatch(ips: Iterable<unknown>, options?: CheckOptions): (CheckResult | ThirdPartyResult | BatchError)[];
  checkBatch(ips: Iterable<unknown>, options?: CheckOptions): (CheckResult | ThirdPartyResult | BatchError)[] {
    const format = formatOf(options);
    // explainOf first, as check() does: a wrong type of explain is invalid_input in either layout.
    const explain = explainOf(options) && format === 'native';
    const iterable = batchIterable(ips);
    // A missing or foreign sidecar fails the whole call, not each element.
    if (explain) this.loadExplainer();
    const list = batchElements(iterable);
    // The length is read once: an element's getter may change the array, and re-reading it per
    // stage left holes at the end of the results (elements gone since are read as undefined).
    const n = list.length;
    const out = new Array<CheckResult | ThirdPartyResult | BatchError>(n);
    for (let g = 0; g < n; g += BATCH_STAGE) this.checkGroup(list, g, Math.min(n, g + BATCH_STAGE), format, out, explain);
    return out;
  }

  /**
   * checkBatch over list[from, to): in stages, so that the memory reads of
   * independent addresses overlap (docs/design.md): 1. parse the IPv4
   * strings, 2. all their index lookups (lookupMany), 3. all their leaves'
   * record ids, 4. the results in order; anything else takes check()'s path.
   */
  private checkGroup(list: readonly unknown[], from: number, to: number, format: ResultFormat, out: unknown[], explain: boolean): void {
    const addrs = this.batchAddrs;
    const leaves = this.batchLeaves;
    const pairs = this.batchPairs;
    const geos = this.batchGeos;
    const ids = this.leafIds;
    const n = to - from;
    // Each element read once (an element with a getter might say another thing the second time).
    const group = list.slice(from, to);
    for (let j = 0; j < n; j++) {
      const ip = group[j];
      const a = typeof ip === 'string' && ip.length <= MAX_IPV4_LENGTH ? parseIPv4(ip) : -1;
      addrs[j] = a < 0 ? 0 : a;
      this.batchIsV4[j] = a < 0 ? 0 : 1;
    }
    this.v4.lookupMany(addrs, leaves, 0, n);
    for (let j = 0; j < n; j++) {
      if (this.batchIsV4[j] === 0) continue;
      pairs[j] = leafPair(ids, leaves[j]!);
      geos[j] = leafGeo(ids, leaves[j]!);
    }
    const today = this.today();
    for (let j = 0; j < n; j++) {
      const ip = group[j];
      let r: CheckResult;
      if (this.batchIsV4[j] === 1) r = this.result(geos[j]!, pairs[j]!, ip as string, 4, today);
      else {
        try {
          r = this.checkNative(ip as string);
        } catch (e) {
          // A damaged snapshot is not a bad element: the whole call fails, as check() does.
          if (!(e instanceof IpIntelError) || e.code === 'snapshot_corrupt') throw e;
          out[from + j] = { ip: echoOf(ip), error: e.toJSON() };
          continue;
        }
      }
      out[from + j] = format === 'native' ? (explain ? this.explained(r) : r) : toThirdParty(r);
    }
  }

  /**
   * Which prefix answered: the largest CIDR block around the address whose
   * addresses all get the same result, so a caller may cache by it.
   *
   * @example
   * intel.match('8.8.8.8').prefix // => '8.8.8.8/32' (the default data lists 8.8.8.8 alone as a public resolver)
   */
  match(ip: string): MatchInfo {
    const a = parseAddress(ip);
    const x = addressToBigInt(a);
    const [start, end] = a.version === 4 ? this.index.bounds4(a.value) : this.index.bounds6(a.words);
    const bits = a.version === 4 ? 32 : 128;
    const len = blockWithin(bits, x, start, end);
    const first = x - (x % (1n << BigInt(bits - len)));
    return { ip: a.text, version: a.version, prefix: `${bigIntToText(a.version, first)}/${len}`, prefix_length: len };
  }

  /**
   * This snapshot's columns copied once into SharedArrayBuffers, for worker
   * threads ({@link fromShared}); later calls return the same object. IPv6
   * columns that wait for their first use are shared as stored (`v6Stored`),
   * and each thread decodes them on its first IPv6 lookup; a snapshot whose
   * IPv6 index was refused makes this throw the same `snapshot_corrupt`.
   *
   * @example
   * new Worker(url, { workerData: intel.share() }); // in the worker: fromShared(workerData)
   */
  share(): SharedSnapshot {
    return (this.shared ??= shareDecoded(this.decoded, () => this.index.v6.columns));
  }

  /** Record ids of a leaf (see IntelInternals.records); the caller checks the range. */
  private records(leaf: number, out: Uint32Array, at: number): void {
    const pair = leafPair(this.leafIds, leaf);
    out[at] = leafGeo(this.leafIds, leaf);
    out[at + 1] = this.pairNet[pair]!;
    out[at + 2] = this.pairSig[pair]!;
  }

  private checkNative(ip: string): CheckResult {
    if (typeof ip !== 'string') throw invalidIp(ip, rejectionReason(ip, 0, 0));
    // 1. IPv4 dotted decimal: the common case, no allocation but the result. A longer text
    //    goes straight to the IPv6 parser (~20 ns of an IPv6 check).
    if (ip.length <= MAX_IPV4_LENGTH) {
      const a = parseIPv4(ip);
      if (a >= 0) return this.assemble(this.v4.leaf(a), ip, 4);
    }
    // 2. IPv6 (IPv4-mapped is answered as IPv4); a negative status is the reason, told
    //    with the IPv4 parser's (off the hot path: only for a text that is neither).
    const w = this.scratch;
    const status = parseIPv6(ip, w);
    if (status < 0) throw invalidIp(ip, rejectionReason(ip, parseIPv4(ip), status));
    if (isV4Mapped(w)) return this.assemble(this.v4.leaf(w[3]!), formatIPv4(w[3]!), 4);
    // Input already in RFC 5952 form (the usual case) is used as is: no new string.
    const text = status & IPV6_CANONICAL ? ip : formatIPv6(w);
    const leaf = this.index.lookup6(w[0]!, w[1]!, w[2]!, w[3]!);
    if (!this.tailGiven) this.giveTail();
    return this.assemble(leaf, text, 6);
  }

  /**
   * Gives the leaves only IPv6 reaches (numbered last by the writer, after
   * every leaf with IPv4 space) answer slots like the hot leaves': without
   * them an IPv6 check reads the leaf's ids, then the slots of its parts
   * (docs/design.md, "Fifteenth round"). Once; needs the IPv6 index.
   */
  private giveTail(): void {
    this.tailGiven = true;
    this.tables.giveTailSlots(this.index.v6.reachedTailFrom(this.leafCount));
  }

  private assemble(leaf: number, ip: string, version: 4 | 6): CheckResult {
    const today = this.today();
    const t = this.tables;
    if (leaf < t.hotLeaves) {
      // One of the largest leaves: its parts from its answer slots, one line.
      t.day(today);
      return this.slotted(t.leafSlots, 3 * leaf, leaf, ip, version, today);
    }
    const tk = leaf - t.tailFrom;
    if (tk >= 0 && tk < t.tailCount) {
      // A leaf only IPv6 reaches: the same from its slots among the tail's.
      t.day(today);
      return this.slotted(t.tailSlots, 3 * tk, leaf, ip, version, today);
    }
    // The leaf's geo row and network/signal pair: one cache line of `leafIds`.
    return this.result(leafGeo(this.leafIds, leaf), leafPair(this.leafIds, leaf), ip, version, today);
  }

  /** The result of `leaf` from its answer slots `slots[k .. k + 2]` (the day's: the caller called `day`), filled on its first use. */
  private slotted(slots: unknown[], k: number, leaf: number, ip: string, version: 4 | 6, today: number): CheckResult {
    let geo = slots[k];
    if (geo === undefined) {
      this.tables.fillSlots(slots, k, leafGeo(this.leafIds, leaf), leafPair(this.leafIds, leaf), today);
      geo = slots[k];
    }
    return this.answer(ip, version, geo as Geo, slots[k + 1] as Network, slots[k + 2] as SigEvidence);
  }

  /**
   * The result for geo row `geo` and network/signal pair `pair`: the shared,
   * frozen parts come from the geo cache (by geo row) and the pair's slots
   * (its network object and the signals, evidence and risk its evidence key
   * decides), filled on the pair's first use.
   */
  private result(geo: number, pair: number, ip: string, version: 4 | 6, today: number): CheckResult {
    const t = this.tables;
    t.day(today);
    const slots = t.pairSlots;
    const k = 2 * pair;
    let network = slots[k];
    if (network === undefined) {
      t.fillPair(pair, today);
      network = slots[k];
    }
    return this.answer(ip, version, t.geo(geo), network as Network, slots[k + 1] as SigEvidence);
  }

  /** A result from its shared parts (one object shape for every path). */
  private answer(ip: string, version: 4 | 6, geo: Geo, network: Network, se: SigEvidence): CheckResult {
    return { ip, version, geo, network, signals: se.signals, evidence: se.evidence, risk: se.risk, attribution: this.attribution };
  }
}

/**
 * {@link fromShared} with `fallback` as the inflater unless the options
 * name one: each entry (Node, portable) passes its own, so that neither
 * loads the other's; `checksum` too (Node's is zlib's: 12 MB in ~5 ms
 * against ~30 for the portable one here, so the batch's check of the
 * IPv6 columns it keeps as stored no longer takes ~14 ms of its load).
 */
export function fromSharedWith(shared: SharedSnapshot, options: LoadOptions | undefined, fallback: Inflate, checksum?: Checksum, index4 = true): IpIntel {
  if (shared === null || typeof shared !== 'object' || typeof shared.columns !== 'object' || shared.columns === null) {
    throw new IpIntelError('invalid_input', 'fromShared expects the object IpIntel#share() returns');
  }
  options = checkLoadOptions(options, 'fromShared');
  const inflate = options?.inflate ?? fallback;
  const v6Stored = shared.v6Stored ?? undefined;
  if (v6Stored !== undefined && typeof v6Stored !== 'object') throw new IpIntelError('invalid_input', 'fromShared expects the object IpIntel#share() returns');
  return new IpIntel(checkDecoded(shared.meta, shared.columns, v6Stored, inflate, checksum, index4), { ...options, inflate });
}

/** {@link loadSnapshot} with `fallback` as the inflater unless the options name one (see {@link fromSharedWith}). */
export function loadSnapshotWith(bytes: Uint8Array, options: LoadOptions | undefined, fallback: Inflate): IpIntel {
  if (!(bytes instanceof Uint8Array)) throw new IpIntelError('invalid_input', 'loadSnapshot expects a Uint8Array');
  options = checkLoadOptions(options, 'loadSnapshot');
  const inflate = options?.inflate ?? fallback;
  return new IpIntel(decodeSnapshot(bytes, inflate, undefined, options?.preload === true), { ...options, inflate });
}
