/**
 * POST /thirdparty/batch: the batch route in the style of the provider whose
 * layout `format=thirdparty` mirrors (what its clients' `getBatch` calls).
 *
 * The body is a list of paths, as a JSON array (`["8.8.8.8", "8.8.4.4/country"]`)
 * or one path a line; the answer is a JSON object with each path as a key and
 * its answer as the value: the whole result for `{ip}` or `{ip}/json`, the
 * field's value for `{ip}/{field}` (thirdparty-fields.ts), or
 * `{"error": {"code", "message"}}` in place for a path that cannot be answered.
 *
 * Counting follows the native batch (docs/api.md, Plans, quotas): every key of
 * the answer that holds a result is one lookup; errors count nothing. A path
 * given twice is one key, so one lookup. `?filter=1` drops the keys without an
 * answer (an error, or a field the data lacks), and a dropped key is not
 * counted. All or nothing against the quota, through metered.ts.
 *
 * @module
 */
import type { IpIntel } from '@ipintel/core';
import type { AppContext, RequestLog } from '../context.js';
import { ProblemError } from '../http/problem.js';
import { resultJson } from '../http/serialize.js';
import { singleField } from '../http/single-field.js';
import { header, type ApiRequest, type ApiResponse } from '../http/types.js';
import { checkThirdparty, intelOf } from './lookup.js';
import { metered } from './metered.js';
import { isJsonContentType, jsonKind, parseJsonText, readTextBody, strictQuery } from './params.js';
import { decodeSegment } from './thirdparty.js';
import { fieldValue, parseThirdpartyPath } from './thirdparty-fields.js';

/** Most paths one batch may carry: the provider's own limit, and its clients' default chunk size. */
export const THIRDPARTY_MAX_BATCH = 1000;

/** Body types read as a list of paths besides JSON (curl's `--data` sends the form type). */
const TEXT_TYPES = ['text/plain', 'application/x-www-form-urlencoded'];

export function thirdpartyBatchRoute(app: AppContext, req: ApiRequest, query: string, rc: RequestLog): Promise<ApiResponse> {
  const params = new URLSearchParams(query);
  return metered(app, req, { params, tokenAllowed: true }, rc, async () => {
    const q = strictQuery(params, ['token', 'filter']);
    const filter = parseFilter(q['filter']);
    const paths = parseBatchBody(await readBatchText(req, app.maxBodyBytes), isJsonContentType(header(req, 'content-type')));
    return answerBatch(intelOf(app), paths, filter);
  });
}

/** `filter` as given: absent, `0`/`false` off; `1`/`true` (or empty, `?filter`) on. */
function parseFilter(value: string | undefined): boolean {
  if (value === undefined || value === '0' || value === 'false') return false;
  if (value === '' || value === '1' || value === 'true') return true;
  throw new ProblemError('invalid_query', `filter must be 1 or 0, got ${JSON.stringify(value.slice(0, 16))}`);
}

/** The body as text, when its type is JSON, plain text, form or absent; else 415 (400 for two types). */
function readBatchText(req: ApiRequest, limit: number): Promise<string> {
  const type = singleField(req, 'content-type', 'Content-Type');
  const bare = type?.split(';')[0]?.trim().toLowerCase();
  if (type !== undefined && !isJsonContentType(type) && !TEXT_TYPES.includes(bare ?? '')) {
    throw new ProblemError('unsupported_media_type', `send the paths as application/json (an array) or text/plain (one a line), not ${JSON.stringify(type.slice(0, 64))}`, {
      'accept-post': 'application/json, text/plain',
    });
  }
  return readTextBody(req, limit);
}

/**
 * The paths of a batch body: a JSON array of strings (always so for a JSON type,
 * and for any body starting with `[`), else one path a line, blank lines skipped.
 * Throws invalid_body or batch_too_large (nothing is counted then).
 */
export function parseBatchBody(text: string, json: boolean): string[] {
  const trimmed = text.trim();
  if (trimmed === '') throw new ProblemError('invalid_body', 'the body is empty; send a JSON array of paths: ["8.8.8.8", "8.8.4.4/country"]');
  let paths: unknown[];
  if (json || trimmed.startsWith('[')) {
    const value = parseJsonText(trimmed);
    if (!Array.isArray(value)) throw new ProblemError('invalid_body', 'the body must be a JSON array of paths: ["8.8.8.8", "8.8.4.4/country"]');
    paths = value;
  } else {
    paths = trimmed.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
  }
  if (paths.length > THIRDPARTY_MAX_BATCH) {
    throw new ProblemError('batch_too_large', `a batch carries at most ${THIRDPARTY_MAX_BATCH} paths, this one has ${paths.length}; nothing was counted`);
  }
  const bad = paths.findIndex((p) => typeof p !== 'string');
  if (bad >= 0) {
    throw new ProblemError('invalid_body', `element ${bad} is ${jsonKind(paths[bad])}, not a path string; nothing was counted`);
  }
  return paths as string[];
}

/** The answer object's text and its lookups: one per key that holds a result. */
export function answerBatch(intel: IpIntel, paths: readonly string[], filter: boolean): { body: string; n: number } {
  const answers = new Map<string, string>();
  let n = 0;
  for (const path of paths) {
    if (answers.has(path)) continue;
    const answer = answerPath(intel, path);
    if (filter && (answer.error || answer.empty)) continue;
    answers.set(path, answer.json);
    if (!answer.error) n++;
  }
  let body = '{';
  for (const [path, json] of answers) body += `${body === '{' ? '' : ','}${JSON.stringify(path)}:${json}`;
  return { body: `${body}}`, n };
}

interface PathAnswer {
  readonly json: string;
  readonly error: boolean;
  /** A field the data lacks (`""`): no answer, for `filter`. */
  readonly empty: boolean;
}

/** One path's answer: `{ip}[/json]`, `{ip}/{field}` (a leading `/` allowed), or an error in place. */
function answerPath(intel: IpIntel, path: string): PathAnswer {
  const target = parseThirdpartyPath(path.startsWith('/') ? path : `/${path}`);
  if (target === undefined) return failed('not_found', `no such path: ${JSON.stringify(path.slice(0, 64))}; a path is {ip}, {ip}/json or {ip}/{field}`);
  if (target.ip === undefined) return failed('missing_ip', `${JSON.stringify(path.slice(0, 64))} names no address; a batch path starts with the IP: 8.8.8.8/country`);
  try {
    const result = checkThirdparty(intel, decodeSegment(target.ip));
    if (target.field === undefined) return { json: resultJson(result), error: false, empty: false };
    const value = fieldValue(result, target.field);
    return { json: typeof value === 'object' ? resultJson(value) : JSON.stringify(value), error: false, empty: value === '' };
  } catch (e) {
    if (e instanceof ProblemError) return failed(e.code, e.message);
    throw e;
  }
}

const failed = (code: string, message: string): PathAnswer => ({ json: JSON.stringify({ error: { code, message } }), error: true, empty: false });
