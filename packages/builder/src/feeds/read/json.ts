/**
 * JSON feeds: decoding and shape checks. A file that is not JSON, or whose
 * top level is not the shape the adapter reads, is a `FeedError` (a wrong
 * file); one malformed record inside a well-formed file is a Diagnostic.
 *
 * @module
 */
import { FeedError } from '../../errors.js';
import { feedText } from './text.js';

/** A plain JSON object. */
export type JsonObject = { readonly [key: string]: unknown };

/**
 * Parses a feed's bytes as JSON.
 *
 * @throws FeedError when the bytes are empty or not JSON.
 */
export function parseJson(feed: string, data: Uint8Array | string): unknown {
  const text = feedText(data);
  if (text.trim() === '') throw new FeedError(feed, 'feed_empty', 'empty file (expected JSON)');
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new FeedError(feed, 'feed_format', `not JSON: ${(e as Error).message}`, { cause: e });
  }
}

/** True for a JSON object (not null, not an array). */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The top-level object of a JSON feed, with the named array members checked.
 *
 * @throws FeedError when the top level is not an object or a named member is not an array.
 */
export function jsonObjectWithArrays(feed: string, data: Uint8Array | string, arrays: readonly string[]): JsonObject {
  const doc = parseJson(feed, data);
  if (!isObject(doc)) throw new FeedError(feed, 'feed_format', `expected a JSON object at the top level, got ${jsonType(doc)}`);
  for (const key of arrays) {
    if (!Array.isArray(doc[key])) throw new FeedError(feed, 'feed_format', `expected "${key}" to be an array, got ${jsonType(doc[key])}`);
  }
  return doc;
}

/** `null`, `array`, `object`, `string`, `number`, `boolean` or `undefined` (missing). */
export function jsonType(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}
