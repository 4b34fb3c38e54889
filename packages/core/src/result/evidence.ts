/**
 * Evidence labels: the class of the source that decided each value, for true
 * and false values alike (PRODUCT.md sections 2 and 3). Three things vary:
 * the label of `connection_type` per signal set (provider-published range =
 * authoritative, the rest inferred), the label of `routing` per network row
 * (`inferred` where only the asmap, not a BGP table, says the address is
 * announced), and per snapshot the keys it has no source for, which say
 * `unavailable` (docs/scoring.md). The rest are fixed by the source class.
 * The combinations are few, so each is one shared, frozen object.
 *
 * @module
 */
import type { Evidence, EvidenceLabel } from '../types.js';

/** The label of each key when the snapshot has its source, in the order of the Evidence type. */
const BASE = {
  connection_type: 'inferred',
  tor: 'authoritative',
  vpn: 'inferred',
  proxy: 'beta',
  verified_bot: 'authoritative',
  relay: 'authoritative',
  routing: 'authoritative',
  allocation: 'authoritative',
  drop_listed: 'authoritative',
  recent_abuse: 'beta',
  public_resolver: 'authoritative',
} as const satisfies Evidence;

/** Every evidence key. */
export const EVIDENCE_KEYS = Object.freeze(Object.keys(BASE) as (keyof Evidence)[]);

/** Whether a value is an evidence key (snapshot metas are checked with it). */
export function isEvidenceKey(x: unknown): x is keyof Evidence {
  return typeof x === 'string' && Object.hasOwn(BASE, x);
}

/** The evidence objects of one snapshot: its unavailable keys fixed, memoized per (connection, routing) label. */
export class EvidenceTable {
  private readonly unavailable: ReadonlySet<keyof Evidence>;
  private readonly cache = new Map<string, Evidence>();

  constructor(unavailable: readonly (keyof Evidence)[]) {
    this.unavailable = new Set(unavailable);
  }

  /** The shared, frozen evidence object for these labels. */
  get(connection: EvidenceLabel, routing: 'authoritative' | 'inferred'): Evidence {
    const key = `${connection}|${routing}`;
    let e = this.cache.get(key);
    if (e === undefined) {
      const labels: Record<keyof Evidence, EvidenceLabel> = { ...BASE, connection_type: connection, routing };
      for (const k of this.unavailable) labels[k] = 'unavailable';
      e = Object.freeze(labels);
      this.cache.set(key, e);
    }
    return e;
  }
}

const COMPLETE = new EvidenceTable([]);

/** The shared, frozen evidence object of a snapshot that has a source for every key. */
export function evidenceFor(connection: EvidenceLabel, routing: 'authoritative' | 'inferred' = 'authoritative'): Evidence {
  return COMPLETE.get(connection, routing);
}
