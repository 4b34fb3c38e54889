/**
 * Strict request parsing for the lookup routes: known query parameters only,
 * each at most once; `format` one of two values; JSON bodies by content type.
 * Every violation is a 4xx ProblemError with a detail that names the cause.
 *
 * @module
 */
import type { ResultFormat } from '@ipintel/core';
import { ProblemError } from '../http/problem.js';
import { singleField } from '../http/single-field.js';
import { header, type ApiRequest } from '../http/types.js';

const quote = (s: string): string => JSON.stringify(s.length > 64 ? `${s.slice(0, 64)}…` : s);

/** The query's parameters as a record; throws invalid_query for unknown or repeated ones. */
export function strictQuery(params: URLSearchParams, allowed: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of params) {
    if (!allowed.includes(name)) {
      throw new ProblemError('invalid_query', `unknown query parameter ${quote(name)}; this endpoint takes: ${allowed.join(', ')}`);
    }
    if (Object.hasOwn(out, name)) throw new ProblemError('invalid_query', `query parameter ${quote(name)} is given more than once`);
    out[name] = value;
  }
  return out;
}

/** What a parsed JSON value is, for a message: `null`, `an array`, `an object`, `a number`, `a string`, `a boolean`. */
export function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** `native` (default) or `thirdparty`; throws invalid_format otherwise. */
export function parseFormat(value: unknown): ResultFormat {
  if (value === undefined || value === 'native') return 'native';
  if (value === 'thirdparty') return 'thirdparty';
  const shown = typeof value === 'string' ? quote(value) : `a ${value === null ? 'null' : typeof value}`;
  throw new ProblemError('invalid_format', `format must be "native" or "thirdparty", got ${shown}`);
}

/** `explain=1` / `true` asks for the explanation; `0` / `false` or absent does not; anything else is invalid_query. */
export function parseExplain(value: string | undefined): boolean {
  if (value === undefined || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw new ProblemError('invalid_query', `explain must be 1 or 0 (true or false), got ${quote(value)}`);
}

/** Whether a content type is JSON in UTF-8 (`application/json`, `application/*+json`; charset utf-8 if given). */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const [type = '', ...params] = value.toLowerCase().split(';');
  const t = type.trim();
  if (t !== 'application/json' && !(t.startsWith('application/') && t.endsWith('+json'))) return false;
  return params.every((p) => {
    const [k, v] = p.split('=').map((x) => x.trim());
    return k !== 'charset' || v === 'utf-8' || v === '"utf-8"' || v === 'utf8';
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads and parses a JSON body within `limit` bytes; throws 413/415/400 problems (400 malformed_request for two Content-Types). */
export async function readJsonBody(req: ApiRequest, limit: number): Promise<unknown> {
  const got = singleField(req, 'content-type', 'Content-Type');
  if (!isJsonContentType(got)) {
    throw new ProblemError(
      'unsupported_media_type',
      got === undefined ? 'send the body as application/json (no Content-Type was given)' : `send the body as application/json, not ${quote(got)}`,
      { 'accept-post': 'application/json' },
    );
  }
  const text = await readTextBody(req, limit);
  if (text.trim() === '') throw new ProblemError('invalid_body', 'the body is empty; send {"ips": [...]}');
  return parseJsonText(text);
}

/** Reads a body of at most `limit` bytes as UTF-8 text, whatever its type; throws 413, 415 (a coded body) or 400 problems. */
export async function readTextBody(req: ApiRequest, limit: number): Promise<string> {
  // A compressed body is not decoded here: refuse it (RFC 9110, 15.5.16) rather than call its bytes bad UTF-8.
  const coding = header(req, 'content-encoding')?.trim().toLowerCase();
  if (coding !== undefined && coding !== '' && coding !== 'identity') {
    throw new ProblemError('unsupported_media_type', `send the body uncompressed, not with Content-Encoding ${quote(coding)}`, { 'accept-encoding': 'identity' });
  }
  const declared = Number(header(req, 'content-length'));
  const bytes = declared > limit ? null : req.readBody === undefined ? new Uint8Array(0) : await req.readBody(limit);
  if (bytes === null) throw new BodyTooLarge(limit);
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ProblemError('invalid_body', 'the body is not valid UTF-8');
  }
}

/** JSON.parse with a 400 invalid_body problem for bad JSON. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ProblemError('invalid_body', `the body is not valid JSON: ${(e as Error).message}`);
  }
}

/** 413 for a body over the limit; the connection is closed since the rest of the body is not read. */
export class BodyTooLarge extends ProblemError {
  constructor(limit: number) {
    super('body_too_large', `the body is larger than ${limit} bytes`, { connection: 'close' });
  }
}
