/**
 * The explain sidecar (`<snapshot>.explain`): what each source said, per
 * role of the combiner, so that an explanation can name the source, the
 * matched prefix and the rule for every field of a result. Written by the
 * builder next to the snapshot; read by core only when an explanation is
 * asked for. docs/snapshot-format.md ("Explain sidecar") describes the same
 * layout in prose.
 *
 *   offset size  field
 *   0      8     magic "IPXPLAIN"
 *   8      2     sidecar format version (u16 LE)
 *   10     2     flags (u16 LE), 0
 *   12     4     header length H (u32 LE)
 *   16     4     CRC-32 of the header bytes
 *   20     H     header: UTF-8 JSON (SidecarHeader)
 *   20+H   ...   body: deflate-raw of the sections (SidecarHeader.body)
 *
 * Body = sections one after another; each: role name (varint length +
 * UTF-8), kind byte (0 prefix, 1 interval, 2 span, 3 asn), family byte (4,
 * 6 or 0), entry count, the values it adds to its role's value table
 * (varint length + UTF-8 JSON array; a role's sections share one table, the
 * IPv6 section's ids continue the IPv4 section's), then columns of varints: prefix = start deltas, lengths, source rows,
 * value ids; interval = gaps from the previous interval's end, sizes
 * (last - first), source rows, value ids; span = as interval, no values;
 * asn = ASN deltas, source rows, value ids.
 *
 * @module
 */
import { crc32 } from '../snapshot/checksum.js';
import type { SnapshotMeta } from '../snapshot/format.js';

export const SIDECAR_MAGIC = new Uint8Array([0x49, 0x50, 0x58, 0x50, 0x4c, 0x41, 0x49, 0x4e]); // "IPXPLAIN"
export const SIDECAR_VERSION = 1;
export const SIDECAR_PRELUDE = 20;

/** Section kinds (the stored byte is the index). */
export const SECTION_KINDS = ['prefix', 'interval', 'span', 'asn'] as const;
export type SectionKind = (typeof SECTION_KINDS)[number];

export interface SidecarHeader {
  readonly sidecar_version: number;
  /** The snapshot this sidecar explains: its build date and identity (snapshotIdentity). */
  readonly snapshot: { readonly build_date: string; readonly identity: string };
  /** The source row of the ROA set the build validated routes against (RPKI statuses), or null. */
  readonly roas_source: number | null;
  /** The deflated body: raw and stored sizes, CRC-32 of the stored bytes. */
  readonly body: { readonly raw: number; readonly stored: number; readonly checksum: number };
}

/**
 * A snapshot's identity: its build date and a hash of every column's
 * checksum, so a sidecar of another build of the same date is refused too.
 * Computed from the meta alone (no column is read).
 */
export function snapshotIdentity(meta: Pick<SnapshotMeta, 'build_date' | 'columns'>): string {
  const cols = Object.keys(meta.columns)
    .sort()
    .map((name) => `${name}:${meta.columns[name]!.checksum}:${meta.columns[name]!.stored}`)
    .join(',');
  const hash = crc32(new TextEncoder().encode(cols)).toString(16).padStart(8, '0');
  return `${meta.build_date}#${hash}`;
}

/** Roles with one or more prefix sections (names of the builder's CombineInput). */
export const PREFIX_ROLES = [
  'routes',
  'routesMapped',
  'rir',
  'bogons',
  'unallocated',
  'datacenterPublished',
  'datacenterInferred',
  'tor',
  'vpn',
  'vpnBroad',
  'proxy',
  'relay',
  'crawlers',
  'resolvers',
  'drop',
  'abuse',
] as const;
export type SidecarPrefixRole = (typeof PREFIX_ROLES)[number];

/** ASN-keyed roles (`asnTags` may hold several entries, one per tag, for an ASN). */
export const ASN_ROLES = ['hostingAsns', 'asnTags', 'asnClass', 'operators', 'dropAsns', 'vpnAsnWide'] as const;
export type SidecarAsnRole = (typeof ASN_ROLES)[number];
