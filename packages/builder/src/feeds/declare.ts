/**
 * A feed declaration: one object that says everything about a feed (who
 * publishes it, where, under which licence, how often, where its copy lives
 * in a feeds folder, how `--fetch` finds it, which role it plays in the
 * build, and the adapter that reads it). Modeled on fastify's route
 * options: `defineFeed` checks the object when the module that declares it
 * loads, and a bad declaration throws a `DeclarationError` naming the
 * field. The registry (registry.ts) then checks what involves several
 * declarations (unique ids and paths) and derives each snapshot source row
 * from the declaration plus what the adapter found.
 *
 * Every field is described in docs/feeds.md.
 *
 * @module
 */
import { refreshMs, type EvidenceLabel } from '@ipintel/core';
import { DeclarationError } from '../errors.js';
import type { GeoFound } from './geo/dbip-city.js';
import type { AsnRangesFound } from './routing/ip-location-db-asn.js';
import type { RoasFound } from './routing/rpki.js';
import type { AsnsFound, Found, Parse, PrefixesFound } from './types.js';

/**
 * The roles a feed can play. `entries` is the shape its adapter returns;
 * `build` says whether the build maps the role to a combiner input (a role
 * the build does not map can only be declared `use: 'context'`).
 */
export const ROLES = {
  routes: { entries: 'prefixes', build: true, meaning: 'announced routes and their origin ASNs: is_announced, the origin RPKI validates' },
  rpki: { entries: 'roas', build: true, meaning: 'validated ROA payloads: network.rpki' },
  allocation: { entries: 'prefixes', build: true, meaning: 'RIR delegations: allocation date, registration country' },
  'bogon-special': { entries: 'prefixes', build: true, meaning: 'special-purpose space: always a bogon' },
  'bogon-unallocated': { entries: 'prefixes', build: true, meaning: 'unallocated space: a bogon while nothing shows it in use' },
  datacenter: {
    entries: 'prefixes',
    build: true,
    meaning: 'hosting ranges and their provider: published when the evidence is authoritative, else inferred',
  },
  'hosting-asn': { entries: 'asns', build: true, meaning: 'hosting ASNs: inferred datacenter for every address they hold' },
  'asn-tag': { entries: 'asns', build: true, meaning: 'bgp.tools ASN tags (`tag` names which); see ASN_TAGS for those the build reads' },
  'as-names': { entries: 'asns', build: true, meaning: 'AS names, class and country: the class keeps transit (T1) networks from ASN-wide datacenter labels' },
  tor: { entries: 'prefixes', build: true, meaning: 'Tor exit addresses: is_tor' },
  vpn: { entries: 'prefixes', build: true, meaning: 'VPN servers (`broad`: ASN-wide or aggregate lists): is_vpn' },
  'vpn-asn': {
    entries: 'asns',
    build: true,
    meaning: 'ASNs an aggregate VPN list expands whole: never is_vpn themselves, and the aggregate lists\' entries inside them are not VPN evidence',
  },
  proxy: { entries: 'prefixes', build: true, meaning: 'open proxies: is_proxy' },
  relay: { entries: 'prefixes', build: true, meaning: 'privacy relay egress ranges: is_relay, relay_provider' },
  crawler: { entries: 'prefixes', build: true, meaning: 'verified crawler ranges: is_verified_bot, verified_bot_name' },
  resolver: { entries: 'prefixes', build: true, meaning: 'public DNS resolvers: is_public_resolver' },
  drop: { entries: 'prefixes', build: true, meaning: 'Spamhaus DROP netblocks: is_drop_listed' },
  'drop-asn': { entries: 'asns', build: true, meaning: 'Spamhaus ASN-DROP: is_drop_listed for every address of the ASN' },
  abuse: { entries: 'prefixes', build: true, meaning: 'observed abuse reports (`minLists`: a threshold): recent_abuse' },
  'asn-kind': {
    entries: 'asns',
    build: true,
    meaning: 'curated operator kinds (mobile-first operators, CDN networks): connection_type where ASN tags are mixed',
  },
  geo: { entries: 'ranges', build: true, meaning: 'the geo table (one file per IP version)' },
  asn: { entries: 'ranges', build: true, meaning: 'the ASN table: asn, as_org (one file per IP version)' },
} as const;

export type Role = keyof typeof ROLES;

/**
 * The bgp.tools tags the build reads (role `asn-tag`), and what it makes of
 * them. A tag list of any other tag can only be declared `use: 'context'`
 * until the build learns to read it.
 */
export const ASN_TAGS = {
  mobile: 'connection_type mobile, only where the ASN carries no dsl or satnet tag (a pure mobile operator)',
  satnet: 'connection_type satellite, only where the ASN carries no dsl or mobile tag',
  dsl: 'marks an eyeball (fixed-line) network: keeps the ASN from ASN-wide mobile, satellite and datacenter labels',
  vpsh: 'hosting ASN (inferred datacenter), only where the ASN carries no eyeball tag and is not a T1',
  cdn: 'CDN network (inferred datacenter), under the same conditions as vpsh',
} as const;

/** The least each role's entries carry: what the build reads from them (an adapter's values may carry more). */
export interface RoleFound {
  routes: PrefixesFound<{ readonly origins: readonly number[] }>;
  rpki: RoasFound;
  allocation: PrefixesFound<{ readonly date: string | null; readonly country: string | null }>;
  'bogon-special': PrefixesFound<unknown>;
  'bogon-unallocated': PrefixesFound<unknown>;
  datacenter: PrefixesFound<{ readonly provider: string | null; readonly cdn?: boolean; readonly anycast?: boolean }>;
  'hosting-asn': AsnsFound<string | null>;
  'asn-tag': AsnsFound<string>;
  'as-names': AsnsFound<{ readonly class: string }>;
  'asn-kind': AsnsFound<import('./curated/operators.js').OperatorKind>;
  tor: PrefixesFound<unknown>;
  vpn: PrefixesFound<{ readonly brand: string | null }>;
  'vpn-asn': AsnsFound<unknown>;
  proxy: PrefixesFound<unknown>;
  relay: PrefixesFound<{ readonly provider: string }>;
  crawler: PrefixesFound<{ readonly name: string }>;
  resolver: PrefixesFound<unknown>;
  drop: PrefixesFound<unknown>;
  'drop-asn': AsnsFound<unknown>;
  abuse: PrefixesFound<{ readonly lists: number }>;
  geo: GeoFound;
  asn: AsnRangesFound;
}

/** Any adapter result: entries of one of the four shapes. */
export type AnyFound = PrefixesFound<unknown> | AsnsFound<unknown> | RoasFound | (Found & { readonly ranges: readonly unknown[] });

/** The page a download URL served, for a locator. */
export interface LocatePage {
  readonly body: Uint8Array;
  /** The Content-Type header, or null. */
  readonly contentType: string | null;
  /** The final URL (after redirects): relative links resolve against it. */
  readonly url: string;
}

/**
 * Finds the real file's URL in the page a download URL serves, or (for a
 * directory listing) `{ page }`, a further page to look in, which the same
 * locator reads next; throws when the page has neither.
 */
export type Locator = (page: LocatePage) => string | { readonly page: string };

/** Where `--fetch` gets a feed. */
export interface Download {
  /** What is downloaded: the file itself, or (with `locate`) a page that leads to it. */
  readonly url: string;
  /** Finds the file in what `url` serves (an HTML download page, a directory listing). */
  readonly locate?: Locator;
}

/** The fields every declaration has, whatever its origin and role. */
export interface DeclarationFields {
  /** Unique, kebab-case; the snapshot source row's id (unless `row` says otherwise) and every diagnostic's `feed`. */
  readonly id: string;
  readonly publisher: string;
  /** The publisher's official URL, shown in the snapshot's source table. */
  readonly url: string;
  readonly licence: string;
  readonly attribution_required: boolean;
  /** Evidence class of what the feed says; every role but `geo` needs one. */
  readonly evidence?: EvidenceLabel;
  /** Note for the source row (re-processed copies, known gaps); an adapter's own note replaces it. */
  readonly note?: string;
  /** A short description of the publisher's format. */
  readonly format: string;
  /** How often the publisher refreshes the feed: `12h`, `1d`, `7d`, `30d`, `365d`. */
  readonly refresh: string;
  /** Whether the repository may carry a copy; undefined until the licence is checked. */
  readonly redistributable?: boolean;
  /** `vpn`: an aggregate list, which yields to more specific sources. */
  readonly broad?: boolean;
  /** `asn-tag`: which bgp.tools tag the list holds. */
  readonly tag?: string;
  /** `abuse`: an entry counts when at least this many lists hold it (IPsum's count). */
  readonly minLists?: number;
  /** The snapshot source row this file counts under when several files make one source (both families of a table). */
  readonly row?: string;
  /** Data date of the copy at `path` when its bytes state none (and the origin gives none). */
  readonly copyDate?: string;
}

/** Where a feed's bytes come from. */
export type FeedOrigin =
  /** A file in a feeds folder (`--feeds DIR`, laid out like shared/feeds), downloaded by `--fetch`. */
  | { readonly origin: 'feeds'; readonly path: string; readonly download: Download }
  /** A file of an npm data package (the default); a tables folder holding `path` overrides it (fixtures). */
  | { readonly origin: 'npm'; readonly npm: { readonly package: string; readonly file: string }; readonly path: string }
  /** A table compiled into the builder (its adapter ignores the bytes). */
  | { readonly origin: 'built-in' };

/** Role, use and adapter: a `build` feed's adapter must return what its role carries. */
export type FeedUse =
  | { [R in Role]: { readonly role: R; readonly use: 'build'; readonly parse: Parse<RoleFound[R]> } }[Role]
  | { readonly role: Role; readonly use: 'context'; readonly parse: Parse<AnyFound> };

export type FeedDeclaration = DeclarationFields & FeedOrigin & FeedUse;

const FIELDS = new Set([
  'id', 'publisher', 'url', 'licence', 'attribution_required', 'evidence', 'note', 'format', 'refresh', 'redistributable',
  'broad', 'tag', 'minLists', 'row', 'copyDate', 'origin', 'path', 'download', 'npm', 'role', 'use', 'parse',
]);
const EVIDENCE = new Set(['authoritative', 'inferred', 'beta']);
const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** `12h` / `7d` in milliseconds, or null (core's rule: the snapshot's readers judge staleness with it). */
export { refreshMs };

/** A relative path inside a feeds folder: no leading `/`, no `..`, no backslash, no empty part. */
export function isFeedPath(path: unknown): path is string {
  return typeof path === 'string' && path !== '' && !path.startsWith('/') && !path.includes('\\') && path.split('/').every((p) => p !== '' && p !== '.' && p !== '..');
}

function isHttpUrl(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * Checks one declaration and returns it frozen.
 *
 * @throws DeclarationError naming the feed and the field at fault.
 */
export function defineFeed<const D extends FeedDeclaration>(declaration: D): D {
  const d = declaration as unknown as Record<string, unknown>;
  const id = typeof d['id'] === 'string' ? d['id'] : null;
  const fail = (field: string, message: string): never => {
    throw new DeclarationError(id ?? '(no id)', field, `${field} ${message}`);
  };
  if (id === null || !KEBAB.test(id)) fail('id', `must be a kebab-case string, got ${JSON.stringify(d['id'])}`);
  for (const key of Object.keys(d)) if (!FIELDS.has(key)) fail(key, 'is not a declaration field');
  for (const f of ['publisher', 'licence', 'format'] as const) {
    const v = d[f];
    if (typeof v !== 'string' || v.trim() === '') fail(f, 'must be a non-empty string');
  }
  if (!isHttpUrl(d['url'])) fail('url', `must be an http(s) URL, got ${JSON.stringify(d['url'])}`);
  if (typeof d['attribution_required'] !== 'boolean') fail('attribution_required', 'must be true or false');
  const role = d['role'] as Role;
  if (typeof role !== 'string' || !Object.hasOwn(ROLES, role)) fail('role', `must be one of ${Object.keys(ROLES).join(', ')}, got ${JSON.stringify(role)}`);
  if (d['use'] !== 'build' && d['use'] !== 'context') fail('use', `must be "build" or "context", got ${JSON.stringify(d['use'])}`);
  if (d['use'] === 'build' && !ROLES[role].build) fail('use', `"build" needs a role the build reads; ${role} is context only`);
  if (d['evidence'] === undefined ? role !== 'geo' : !EVIDENCE.has(d['evidence'] as string)) {
    fail('evidence', `must be authoritative, inferred or beta${role === 'geo' ? ' (or absent)' : ''}, got ${JSON.stringify(d['evidence'])}`);
  }
  for (const f of ['note', 'row', 'copyDate'] as const) {
    const v = d[f];
    if (v !== undefined && (typeof v !== 'string' || v === '')) fail(f, 'must be a non-empty string when given');
  }
  if (d['row'] !== undefined && !KEBAB.test(d['row'] as string)) fail('row', `must be kebab-case, got ${JSON.stringify(d['row'])}`);
  if (d['copyDate'] !== undefined && Number.isNaN(Date.parse(d['copyDate'] as string))) fail('copyDate', `is not a date: ${JSON.stringify(d['copyDate'])}`);
  if (typeof d['refresh'] !== 'string' || refreshMs(d['refresh']) === null) {
    fail('refresh', `must be a whole number of hours or days like "12h" or "7d", got ${JSON.stringify(d['refresh'])}`);
  }
  for (const f of ['redistributable', 'broad'] as const) {
    if (d[f] !== undefined && typeof d[f] !== 'boolean') fail(f, 'must be true, false or absent');
  }
  if (d['broad'] !== undefined && role !== 'vpn') fail('broad', `applies to the vpn role only, not ${role}`);
  if (role === 'asn-tag') {
    if (typeof d['tag'] !== 'string' || !KEBAB.test(d['tag'])) fail('tag', 'must name the bgp.tools tag (kebab-case) of an asn-tag feed');
    if (d['use'] === 'build' && !Object.hasOwn(ASN_TAGS, d['tag'] as string)) {
      fail('use', `"build" needs a tag the build reads (${Object.keys(ASN_TAGS).join(', ')}); ${String(d['tag'])} is context only`);
    }
  } else if (d['tag'] !== undefined) fail('tag', `applies to the asn-tag role only, not ${role}`);
  if (d['minLists'] !== undefined && (role !== 'abuse' || !Number.isInteger(d['minLists']) || (d['minLists'] as number) < 1)) {
    fail('minLists', 'must be a whole number >= 1, on an abuse feed only');
  }
  if (typeof d['parse'] !== 'function') fail('parse', 'must be the adapter function');
  checkOrigin(d, fail);
  return Object.freeze(declaration);
}

function checkOrigin(d: Record<string, unknown>, fail: (field: string, message: string) => never): void {
  const origin = d['origin'];
  if (origin === 'feeds') {
    if (!isFeedPath(d['path'])) fail('path', `must be a relative path inside a feeds folder, got ${JSON.stringify(d['path'])}`);
    const dl = d['download'] as Record<string, unknown> | undefined;
    if (typeof dl !== 'object' || dl === null || !isHttpUrl(dl['url'])) fail('download', 'must be { url: an http(s) URL, locate? }');
    for (const key of Object.keys(dl)) if (key !== 'url' && key !== 'locate') fail('download', `has an unknown field ${key}`);
    if (dl['locate'] !== undefined && typeof dl['locate'] !== 'function') fail('download', 'locate must be a function');
    if (d['npm'] !== undefined) fail('npm', 'belongs to origin "npm" only');
  } else if (origin === 'npm') {
    const npm = d['npm'] as Record<string, unknown> | undefined;
    if (typeof npm !== 'object' || npm === null || typeof npm['package'] !== 'string' || typeof npm['file'] !== 'string') {
      fail('npm', 'must be { package, file }');
    }
    if (!isFeedPath(d['path'])) fail('path', `must be the relative path of the same data in a tables folder, got ${JSON.stringify(d['path'])}`);
    if (d['download'] !== undefined) fail('download', 'an npm table is not downloaded by --fetch');
  } else if (origin === 'built-in') {
    for (const f of ['path', 'download', 'npm']) if (d[f] !== undefined) fail(f, 'a built-in table has no file');
  } else fail('origin', `must be "feeds", "npm" or "built-in", got ${JSON.stringify(origin)}`);
}
