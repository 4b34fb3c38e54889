/**
 * The native lookup routes: `GET /v1/check` and `POST /v1/check/batch`, and
 * the two steps every lookup route shares (the snapshot in service, one
 * checked address). Each runs through the metered pipeline (metered.ts); the
 * /thirdparty alias routes are in thirdparty.ts and thirdparty-batch.ts.
 *
 * @module
 */
import { IpIntelError, type IpIntel, type ResultFormat, type ThirdPartyResult } from '@ipintel/core';
import { MAX_BATCH, type AppContext, type RequestLog } from '../context.js';
import { ProblemError } from '../http/problem.js';
import { jsonPreview, resultJson } from '../http/serialize.js';
import type { ApiRequest, ApiResponse } from '../http/types.js';
import { metered, type Outcome } from './metered.js';
import { jsonKind, parseExplain, parseFormat, readJsonBody, strictQuery } from './params.js';

/** The snapshot in service; 503 snapshot_unavailable before the first one loads. */
export function intelOf(app: AppContext): IpIntel {
  const intel = app.snapshot.current;
  if (intel === undefined) throw new ProblemError('snapshot_unavailable', 'no IP data snapshot is loaded yet; retry shortly', { 'retry-after': '5' });
  return intel;
}

/** One address checked in the thirdparty layout; invalid_ip as a 400 problem. */
export function checkThirdparty(intel: IpIntel, ip: string): ThirdPartyResult {
  try {
    return intel.check(ip, { format: 'thirdparty' });
  } catch (e) {
    throw asProblem(e);
  }
}

/** One address checked (with its explanation when asked): its answer as one lookup; invalid_ip as a 400 problem. */
export function checkOne(intel: IpIntel, ip: string, format: ResultFormat, explain = false): Outcome {
  try {
    return { body: resultJson(intel.check(ip, { format, explain })), n: 1 };
  } catch (e) {
    throw asProblem(e);
  }
}

/** core's invalid_ip as the API's 400 problem, its explain errors as 503 explain_unavailable; anything else unchanged. */
function asProblem(e: unknown): unknown {
  if (!(e instanceof IpIntelError)) return e;
  if (e.code === 'invalid_ip') return new ProblemError('invalid_ip', e.message);
  if (e.code.startsWith('explain_')) return explainProblem(e);
  return e;
}

/**
 * What a client is told for each of core's explain errors. Not core's message: that one is
 * for the operator and names the server's files (`no explain sidecar at /var/lib/...`), which
 * an API client has no business seeing. The operator gets it from `ipintel check --explain`.
 */
const EXPLAIN_TEXT: Readonly<Record<string, string>> = {
  explain_unavailable: 'the snapshot in service has no explain sidecar',
  explain_mismatch: "the snapshot in service has an explain sidecar of another build, or one that does not give the snapshot's answers",
  explain_corrupt: "the snapshot in service has a damaged explain sidecar",
};

/** The server cannot explain: its snapshot has no sidecar, or one of another build, or a broken one (core's code in the detail). */
function explainProblem(e: IpIntelError): ProblemError {
  const why = EXPLAIN_TEXT[e.code] ?? 'its explain sidecar cannot be read';
  return new ProblemError('explain_unavailable', `this server cannot explain results (${e.code}): ${why}; lookups without explain are served`);
}

const CHECK_PARAMS = ['ip', 'format', 'explain'] as const;

/** GET /v1/check?ip=&format=&explain= */
export function checkRoute(app: AppContext, req: ApiRequest, query: string, rc: RequestLog): Promise<ApiResponse> {
  const params = new URLSearchParams(query);
  return metered(app, req, { params, tokenAllowed: false }, rc, () => {
    const q = strictQuery(params, CHECK_PARAMS);
    const ip = q['ip'];
    if (ip === undefined || ip === '') throw new ProblemError('missing_ip', 'the query parameter ip is required, e.g. /v1/check?ip=8.8.8.8');
    const format = parseFormat(q['format']);
    return checkOne(intelOf(app), ip, format, parseExplain(q['explain']));
  });
}

const BATCH_FIELDS = ['ips', 'format'];

/** POST /v1/check/batch with {"ips": [...], "format"?: ...} */
export function batchRoute(app: AppContext, req: ApiRequest, query: string, rc: RequestLog): Promise<ApiResponse> {
  const params = new URLSearchParams(query);
  return metered(app, req, { params, tokenAllowed: false }, rc, async () => {
    const q = strictQuery(params, ['format', 'explain']);
    const explain = parseExplain(q['explain']);
    const body = await readJsonBody(req, app.maxBodyBytes);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new ProblemError('invalid_body', 'the body must be a JSON object: {"ips": ["8.8.8.8", ...]}');
    }
    const fields = body as Record<string, unknown>;
    const unknown = Object.keys(fields).find((k) => !BATCH_FIELDS.includes(k));
    if (unknown !== undefined) throw new ProblemError('invalid_body', `unknown field ${JSON.stringify(unknown.slice(0, 64))}; the body takes ips and format`);
    const ips = fields['ips'];
    if (!Array.isArray(ips)) throw new ProblemError('invalid_body', 'the field ips must be an array of IP address strings');
    if (ips.length > MAX_BATCH) {
      throw new ProblemError('batch_too_large', `a batch carries at most ${MAX_BATCH} IPs, this one has ${ips.length}; nothing was counted`);
    }
    const bodyFormat = fields['format'] === undefined ? undefined : parseFormat(fields['format']);
    const queryFormat = q['format'] === undefined ? undefined : parseFormat(q['format']);
    if (bodyFormat !== undefined && queryFormat !== undefined && bodyFormat !== queryFormat) {
      throw new ProblemError('invalid_format', 'the format in the query and the format in the body differ');
    }
    const chosen = bodyFormat ?? queryFormat ?? 'native';
    const intel = intelOf(app);
    let n = 0;
    const results = ips.map((ip: unknown, i): string => {
      if (typeof ip !== 'string') {
        // jsonPreview, not JSON.stringify: an element nested thousands deep must not overflow the stack.
        return JSON.stringify({ ip: jsonPreview(ip, 64), error: { code: 'invalid_ip', message: `ips[${i}] is ${jsonKind(ip)}, not a string` } });
      }
      try {
        const r = resultJson(intel.check(ip, { format: chosen, explain }));
        n++;
        return r;
      } catch (e) {
        // Only a bad element is answered in place. The sidecar and the snapshot are the server's, not
        // the element's: an explain error fails the whole request as /v1/check's does (503), and so
        // does anything else (a snapshot_corrupt from an IPv6 index decoded on first use: 500).
        if (e instanceof IpIntelError && e.code === 'invalid_ip') return JSON.stringify({ ip, error: e.toJSON() });
        throw asProblem(e);
      }
    });
    return { body: `{"results":[${results.join(',')}]}`, n };
  });
}
