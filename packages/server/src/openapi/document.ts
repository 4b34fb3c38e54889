/**
 * The OpenAPI 3.1 document served at GET /v1/openapi.json: every route, its
 * parameters, answers, problem codes and headers. Schemas live in schemas.ts.
 *
 * @module
 */
import { PROBLEMS, type ProblemCode } from '../http/problem.js';
import { THIRDPARTY_MAX_BATCH } from '../routes/thirdparty-batch.js';
import { PRIVACY_KEYS, THIRDPARTY_FIELDS } from '../routes/thirdparty-fields.js';
import { SCHEMAS } from './schemas.js';

type Obj = Record<string, unknown>;

const RATE_HEADERS: Obj = {
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
};

const jsonOf = (schema: Obj, type = 'application/json'): Obj => ({ [type]: { schema } });
const schemaRef = (name: string): Obj => ({ $ref: `#/components/schemas/${name}` });

/** One response entry per status, listing the problem codes it may carry. */
function problems(codes: readonly ProblemCode[]): Obj {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const c of codes) byStatus.set(PROBLEMS[c][0], [...(byStatus.get(PROBLEMS[c][0]) ?? []), c]);
  const out: Obj = {};
  for (const [status, list] of byStatus) {
    // 401: key_not_active says when the key becomes active.
    const headers: Obj = status === 401 || status === 429 || status === 503 ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {};
    if (status === 405) headers['Allow'] = { schema: { type: 'string' } };
    if (status === 415) {
      headers['Accept-Post'] = { description: 'The body types the route takes.', schema: { type: 'string' } };
      headers['Accept-Encoding'] = { description: '`identity`: for a compressed body (Content-Encoding other than identity).', schema: { type: 'string' } };
    }
    // Every answer to an accepted key carries them (docs/api.md, Errors): the statuses a route gives after the key.
    if (status === 400 || status === 413 || status === 415 || status === 429 || status === 503) Object.assign(headers, RATE_HEADERS);
    out[String(status)] = {
      description: `Problem: ${list.map((c) => `\`${c}\``).join(', ')}`,
      headers,
      content: jsonOf(schemaRef('Problem'), 'application/problem+json'),
    };
  }
  return out;
}

/** Answers any request may get before routing: broken HTTP, too slow, too many or too large headers, an unmet Expect. */
const REQUEST_PROBLEMS: ProblemCode[] = ['malformed_request', 'request_timeout', 'headers_too_large', 'expectation_failed'];
const AUTH_PROBLEMS: ProblemCode[] = ['missing_api_key', 'invalid_api_key', 'key_not_active', 'key_revoked', 'rate_limited', 'quota_exceeded', 'store_unavailable', 'snapshot_unavailable', ...REQUEST_PROBLEMS];
/** `explain=1`: the native result carries `explanation` (the thirdparty layout ignores it). */
const EXPLAIN_PARAM = {
  name: 'explain',
  in: 'query',
  required: false,
  schema: { type: 'string', enum: ['1', '0', 'true', 'false'] },
  description: 'With 1 (or true) a native result carries `explanation`: per field the deciding rule and the sources, prefixes and data dates behind it. The thirdparty layout ignores it.',
};

const LOOKUP_RESULT = { anyOf: [schemaRef('CheckResult'), schemaRef('ThirdPartyResult')] };
const KEYED = [{ ApiKey: [] }, { Bearer: [] }];

const THIRDPARTY_SECURITY = [...KEYED, { Token: [] }, { Basic: [] }];
const IP_PARAM = { name: 'ip', in: 'path', required: true, schema: { type: 'string' } };

const thirdparty = (withIp: boolean, summary: string): Obj => ({
  get: {
    summary,
    tags: ['lookup'],
    security: THIRDPARTY_SECURITY,
    parameters: withIp ? [IP_PARAM] : [],
    responses: {
      '200': { description: 'The result in the thirdparty layout.', headers: RATE_HEADERS, content: jsonOf(schemaRef('ThirdPartyResult')) },
      ...problems(['invalid_ip', 'missing_ip', 'invalid_query', 'method_not_allowed', ...AUTH_PROBLEMS]),
    },
  },
});

/**
 * GET of one field: `{field}` a top-level field (plain text, `privacy` as JSON), or, with
 * `privacy`, `privacy/{key}` as two path segments (a path parameter cannot hold the `/`: a
 * client would send it as `%2F`, which names no field).
 */
const thirdpartyField = (withIp: boolean, param: 'field' | 'key', values: readonly string[]): Obj => ({
  get: {
    summary: `One ${param === 'key' ? 'privacy flag' : 'field'} of the thirdparty result${withIp ? '' : " for the caller's own address"} (one lookup): its value and a newline as text ("" when the data lacks it; bogon and anycast "false"), privacy as JSON.`,
    tags: ['lookup'],
    security: THIRDPARTY_SECURITY,
    parameters: [...(withIp ? [IP_PARAM] : []), { name: param, in: 'path', required: true, schema: { type: 'string', enum: values } }],
    responses: {
      '200': {
        description: 'The field.',
        headers: RATE_HEADERS,
        // Only `privacy` itself answers JSON; a privacy flag is text, as every other field.
        content: { 'text/plain': { schema: { type: 'string' } }, ...(param === 'field' ? jsonOf(schemaRef('ThirdPartyPrivacy')) : {}) },
      },
      ...problems(['invalid_ip', 'missing_ip', 'invalid_query', 'not_found', 'method_not_allowed', ...AUTH_PROBLEMS]),
    },
  },
});

/**
 * The document; `server` is the public base URL ('' for relative).
 * `demoQuota`: the server's lookups per client address per day without a key
 * (AppOptions.demoQuota): its lookup routes then take no key too (an empty
 * security requirement, OpenAPI's "optional").
 */
export function openApiDocument(server: string, options: { readonly demoQuota?: number } = {}): Obj {
  const doc = document(server);
  if (options.demoQuota === undefined) return doc;
  const info = doc['info'] as Obj;
  info['description'] =
    `IP intelligence: geolocation, network, abuse signals with evidence labels, and a risk score. A lookup without an API key is served up to ${options.demoQuota} per client address (IPv6: per /64) per UTC day (this server's demo quota); a request that presents a key is judged by it alone. Errors are RFC 9457 problem details with a stable \`code\`.`;
  for (const path of Object.values(doc['paths'] as Record<string, Record<string, Obj>>)) {
    for (const op of Object.values(path)) if (Array.isArray(op['security'])) op['security'] = [...(op['security'] as Obj[]), {}];
  }
  return doc;
}

function document(server: string): Obj {
  return {
    openapi: '3.1.0',
    info: {
      title: 'ipintel API',
      version: '1.0.0',
      description:
        'IP intelligence: geolocation, network, abuse signals with evidence labels, and a risk score. Every lookup needs an API key; errors are RFC 9457 problem details with a stable `code`.',
    },
    servers: [{ url: server === '' ? '/' : server }],
    tags: [{ name: 'lookup' }, { name: 'service' }],
    paths: {
      '/v1/check': {
        get: {
          summary: 'Check one IP address (one lookup).',
          tags: ['lookup'],
          security: KEYED,
          parameters: [
            { name: 'ip', in: 'query', required: true, schema: { type: 'string' }, description: 'IPv4 or IPv6 address.' },
            { name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['native', 'thirdparty'] } },
            EXPLAIN_PARAM,
          ],
          responses: {
            '200': { description: 'The result (native layout, or thirdparty with format=thirdparty).', headers: RATE_HEADERS, content: jsonOf(LOOKUP_RESULT) },
            ...problems(['missing_ip', 'invalid_ip', 'invalid_format', 'invalid_query', 'method_not_allowed', 'explain_unavailable', ...AUTH_PROBLEMS]),
          },
        },
      },
      '/v1/check/batch': {
        post: {
          summary: 'Check up to 100 IP addresses; each successful element is one lookup. A batch that would cross the quota is refused whole.',
          tags: ['lookup'],
          security: KEYED,
          parameters: [{ name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['native', 'thirdparty'] } }, EXPLAIN_PARAM],
          requestBody: { required: true, content: jsonOf(schemaRef('BatchRequest')) },
          responses: {
            '200': { description: 'Results in request order; an invalid element carries an error in place.', headers: RATE_HEADERS, content: jsonOf(schemaRef('BatchResponse')) },
            ...problems(['invalid_body', 'invalid_format', 'invalid_query', 'batch_too_large', 'body_too_large', 'unsupported_media_type', 'method_not_allowed', 'explain_unavailable', ...AUTH_PROBLEMS]),
          },
        },
      },
      '/thirdparty/{ip}/json': thirdparty(true, 'Check one IP, thirdparty layout (migration alias).'),
      '/thirdparty/{ip}': thirdparty(true, 'Same as /thirdparty/{ip}/json.'),
      '/thirdparty/json': thirdparty(false, "Check the caller's own address, thirdparty layout."),
      '/thirdparty': thirdparty(false, 'Same as /thirdparty/json.'),
      '/thirdparty/': thirdparty(false, 'Same as /thirdparty/json.'),
      '/thirdparty/{ip}/{field}': thirdpartyField(true, 'field', THIRDPARTY_FIELDS),
      '/thirdparty/{ip}/privacy/{key}': thirdpartyField(true, 'key', PRIVACY_KEYS),
      '/thirdparty/{field}': thirdpartyField(false, 'field', THIRDPARTY_FIELDS),
      '/thirdparty/privacy/{key}': thirdpartyField(false, 'key', PRIVACY_KEYS),
      '/thirdparty/batch': {
        post: {
          summary: `Up to ${THIRDPARTY_MAX_BATCH} paths ({ip}, {ip}/json, {ip}/{field}) as a JSON array or one a line; answers an object keyed by path. One lookup per key holding a result; ?filter=1 drops (and does not count) keys without one.`,
          tags: ['lookup'],
          security: THIRDPARTY_SECURITY,
          parameters: [{ name: 'filter', in: 'query', required: false, schema: { type: 'string', enum: ['1', '0', 'true', 'false', ''] } }],
          requestBody: {
            required: true,
            content: {
              ...jsonOf({ type: 'array', maxItems: THIRDPARTY_MAX_BATCH, items: { type: 'string' } }),
              'text/plain': { schema: { type: 'string', description: 'One path a line.' } },
            },
          },
          responses: {
            '200': { description: 'Answers by path.', headers: RATE_HEADERS, content: jsonOf(schemaRef('ThirdPartyBatchResponse')) },
            ...problems(['invalid_body', 'invalid_query', 'batch_too_large', 'body_too_large', 'unsupported_media_type', 'method_not_allowed', ...AUTH_PROBLEMS]),
          },
        },
      },
      '/attribution': {
        get: {
          summary: 'Data sources, licences and links of the snapshot in service (HTML or JSON by Accept).',
          tags: ['service'],
          responses: {
            '200': {
              description: 'The sources.',
              content: { 'text/html': { schema: { type: 'string' } }, ...jsonOf(schemaRef('Attribution')) },
            },
            ...problems(['snapshot_unavailable', 'method_not_allowed', ...REQUEST_PROBLEMS]),
          },
        },
      },
      '/healthz': {
        get: {
          summary: 'Health: snapshot and store status (no key). 503 when either is unavailable.',
          tags: ['service'],
          responses: {
            '200': { description: 'Healthy.', content: jsonOf(schemaRef('Health')) },
            '503': { description: 'Not serving.', content: jsonOf(schemaRef('Health')) },
            ...problems(['method_not_allowed', ...REQUEST_PROBLEMS]),
          },
        },
      },
      '/v1/openapi.json': {
        get: {
          summary: 'This document.',
          tags: ['service'],
          responses: { '200': { description: 'OpenAPI 3.1.', content: jsonOf({ type: 'object' }) }, ...problems(['method_not_allowed', ...REQUEST_PROBLEMS]) },
        },
      },
    },
    components: {
      schemas: SCHEMAS,
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Key of the form ipi_live_<32 characters>.' },
        Bearer: { type: 'http', scheme: 'bearer' },
        Token: { type: 'apiKey', in: 'query', name: 'token', description: 'Only on the /thirdparty routes.' },
        Basic: { type: 'http', scheme: 'basic', description: 'Only on the /thirdparty routes: the key as the user name, an empty password (curl -u KEY:).' },
      },
      headers: {
        'RateLimit-Limit': { description: "The key's quota for the current period.", schema: { type: 'integer' } },
        'RateLimit-Remaining': { description: 'Lookups left in the current period.', schema: { type: 'integer' } },
        'RateLimit-Reset': { description: 'Seconds until the quota period resets.', schema: { type: 'integer' } },
        'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
      },
    },
  };
}
