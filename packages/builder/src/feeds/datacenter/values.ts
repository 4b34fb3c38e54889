/**
 * What every datacenter feed yields: prefixes valued with the provider's
 * display name (null when the list names none), and the reader shared by
 * the providers' JSON files.
 *
 * Whether a range is provider-published or inferred is the declaration's
 * `evidence` (authoritative / inferred), not part of the value.
 *
 * In JSON feeds, Diagnostics are numbered by record, 1-based, counting
 * through the file's prefix arrays in order (AWS: `prefixes` then
 * `ipv6_prefixes`), and name the array and index. Where a feed repeats a
 * prefix (AWS per service, cloud-ips), `entries` counts distinct prefixes.
 *
 * @module
 */
import { FeedError } from '../../errors.js';
import { defaultRouteEntry, parseCidr } from '../read/cidr.js';
import { isObject, jsonType } from '../read/json.js';
import type { JsonObject } from '../read/json.js';
import { uniquePrefixes } from '../read/lines.js';
import type { Diagnostic, Prefix, PrefixesFound } from '../types.js';

export interface DatacenterValue {
  /** Display name of the provider; null when the source does not name one. */
  readonly provider: string | null;
  /** A CDN's edge range (CloudFront, Cloudflare, Fastly): never a VPN server, whatever a VPN list says. */
  readonly cdn: boolean;
  /** The provider announces the range anycast (per its own documentation). */
  readonly anycast: boolean;
}

const values = new Map<string, DatacenterValue>();
/** The shared, frozen value for a provider (and its range's traits). */
export function datacenterValue(provider: string | null, traits: { cdn?: boolean; anycast?: boolean } = {}): DatacenterValue {
  const cdn = traits.cdn ?? false;
  const anycast = traits.anycast ?? false;
  const key = `${provider ?? ''}|${provider === null ? 0 : 1}|${cdn ? 1 : 0}|${anycast ? 1 : 0}`;
  let v = values.get(key);
  if (v === undefined) values.set(key, (v = Object.freeze({ provider, cdn, anycast })));
  return v;
}

/** One CIDR string of a JSON feed, with where it was found. */
export interface JsonCidr {
  readonly value: unknown;
  /** e.g. `prefixes[12].ip_prefix`. */
  readonly where: string;
  /** Why the record gives no CIDR, when that is not the value's type or text (a record naming two). */
  readonly problem?: string;
}

/**
 * Reads CIDR strings found in JSON records; a non-string, a non-CIDR or a
 * prefix with host bits set (never widened: read/lines.ts) is a Diagnostic
 * numbered by its position in `items` (1-based). Repeats are kept once.
 *
 * @throws FeedError when there are no records, or none holds a CIDR.
 */
export function jsonCidrs<V>(feed: string, items: readonly JsonCidr[], value: V, dataDate: string | null = null): PrefixesFound<V> {
  const found: Prefix<V>[] = [];
  const rejected: Diagnostic[] = [];
  items.forEach((item, i) => {
    const line = i + 1;
    if (item.problem !== undefined) {
      rejected.push({ feed, line, message: `${item.where}: ${item.problem}` });
      return;
    }
    if (typeof item.value !== 'string') {
      rejected.push({ feed, line, message: `${item.where} is ${jsonType(item.value)}, not a CIDR string` });
      return;
    }
    const text = item.value.trim();
    const c = parseCidr(text);
    const why = !c.ok ? c.message : c.hostBitsSet ? `host bits set: ${JSON.stringify(text)}` : defaultRouteEntry(c.length, text);
    if (c.ok && why === null) found.push({ version: c.version, start: c.start, length: c.length, value });
    else rejected.push({ feed, line, message: `${item.where}: ${why}` });
  });
  if (items.length === 0) throw new FeedError(feed, 'feed_empty', 'no prefix records');
  if (found.length === 0) throw new FeedError(feed, 'feed_format', `no record holds a CIDR (record 1: ${rejected[0]!.message})`);
  return { prefixes: uniquePrefixes(found), rejected, dataDate };
}

/** Each element of an array member, as `JsonCidr` picked by `pick`. */
export function fromArray(doc: JsonObject, key: string, pick: (rec: unknown, where: string) => JsonCidr): JsonCidr[] {
  return (doc[key] as unknown[]).map((rec, i) => pick(rec, `${key}[${i}]`));
}

/** The elements of an array member themselves (lists of CIDR strings). */
export function stringsOf(doc: JsonObject, key: string): JsonCidr[] {
  return fromArray(doc, key, (value, where) => ({ value, where }));
}

/** The first of `fields` a record has, or the record itself when it is not an object (reported as such). */
export function field(rec: unknown, where: string, ...fields: string[]): JsonCidr {
  if (!isObject(rec)) return { value: rec, where };
  const present = fields.filter((f) => rec[f] !== undefined);
  // Google's records hold one of ipv4Prefix / ipv6Prefix; reading the first of two would drop the other unsaid.
  if (present.length > 1) return { value: rec, where, problem: `holds both ${present.join(' and ')}; a record gives one prefix` };
  if (present.length === 1) return { value: rec[present[0]!], where: `${where}.${present[0]!}` };
  return { value: undefined, where: `${where}.${fields.join('|')}` };
}

/** What provider-published datacenter declarations share. */
export const PUBLISHED = { evidence: 'authoritative', attribution_required: false, role: 'datacenter', use: 'build', origin: 'feeds' } as const;
