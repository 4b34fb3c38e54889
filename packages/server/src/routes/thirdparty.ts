/**
 * The GET routes of the /thirdparty alias, for clients of the provider whose
 * layout `format=thirdparty` mirrors: `/thirdparty/{ip}[/json]` (the whole
 * result), `/thirdparty/{ip}/{field}` (one field as plain text, as that
 * provider answers it), and the same without `{ip}` for the caller's own
 * address. The key may also come as `?token=` or HTTP Basic (auth.ts).
 * One lookup per answer, through the metered pipeline (metered.ts).
 *
 * @module
 */
import type { AppContext, RequestLog } from '../context.js';
import { ProblemError } from '../http/problem.js';
import { resultJson } from '../http/serialize.js';
import type { ApiRequest, ApiResponse } from '../http/types.js';
import { checkThirdparty, intelOf } from './lookup.js';
import { metered, type Outcome } from './metered.js';
import { strictQuery } from './params.js';
import { fieldText, fieldValue, type ThirdpartyTarget } from './thirdparty-fields.js';

const TEXT_TYPE = 'text/plain; charset=utf-8';

/** GET /thirdparty[/json], /thirdparty/{field}, /thirdparty/{ip}[/json], /thirdparty/{ip}/{field} (the router parsed the path). */
export function thirdpartyRoute(app: AppContext, req: ApiRequest, target: ThirdpartyTarget, query: string, rc: RequestLog): Promise<ApiResponse> {
  const params = new URLSearchParams(query);
  return metered(app, req, { params, tokenAllowed: true }, rc, (): Outcome => {
    strictQuery(params, ['token']);
    const result = checkThirdparty(intelOf(app), target.ip === undefined ? callerAddress(req) : decodeSegment(target.ip));
    if (target.field === undefined) return { body: resultJson(result), n: 1 };
    const value = fieldValue(result, target.field);
    // An object (privacy) is JSON, as the provider answers it; a scalar is one line of text.
    return typeof value === 'object' ? { body: resultJson(value), n: 1 } : { body: fieldText(value), n: 1, contentType: TEXT_TYPE };
  });
}

/** The caller's address (behind trusted proxies, the one they forward); 400 missing_ip when unknown. */
function callerAddress(req: ApiRequest): string {
  const own = req.remoteAddress;
  if (own === undefined || own === '') throw new ProblemError('missing_ip', "the caller's address is not known here; put the IP in the path: /thirdparty/8.8.8.8/json");
  return own;
}

/** A path segment with its percent-encoding undone (an IPv6 address may come encoded). */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ProblemError('invalid_ip', `${JSON.stringify(segment.slice(0, 64))} is not a valid IP address: bad percent-encoding`);
  }
}
