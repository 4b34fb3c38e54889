/**
 * The request target as the routes read it: origin-form, `/path?query`.
 *
 * RFC 9112 (3.2.2) lets a client send the absolute-form, `http://host/path?query`,
 * and says a server MUST accept it: clients send it to proxies, and a proxy
 * that forwards the target as it came, or a hand-made client, sends it to a
 * server. node:http hands the target on as it came, so the router matched
 * `http://host/v1/check` against its paths and answered 404 for an endpoint
 * that exists. The scheme and authority are dropped here: the API serves one
 * host and reads nothing from the URL's host (the RFC has a server use the
 * target's authority instead of Host; nothing here uses either).
 *
 * Only `http` and `https` targets are taken; anything else (the asterisk-form
 * of `OPTIONS *`, another scheme) is left as it came and routes to a 404.
 * Nothing else is normalised: paths match exactly as sent (docs/api.md, Endpoints).
 *
 * @module
 */

/** `http://` or `https://` and the authority after it (no `/`, `?` or `#`), any case. */
const SCHEME_AND_AUTHORITY = /^https?:\/\/[^/?#]*/i;

/**
 * The origin-form of a request target: unchanged when it starts with `/`
 * (one character test: the request path pays nothing more), else the path and
 * query of an `http(s)://` absolute-form (`/` when its path is empty).
 *
 * @example
 * originForm('/v1/check?ip=8.8.8.8')              // => '/v1/check?ip=8.8.8.8'
 * originForm('http://ip.example/v1/check?ip=8.8.8.8') // => '/v1/check?ip=8.8.8.8'
 * originForm('http://ip.example?ip=1')             // => '/?ip=1'
 * originForm('*')                                  // => '*'
 */
export function originForm(target: string): string {
  if (target.charCodeAt(0) === 47 /* '/' */) return target;
  const m = SCHEME_AND_AUTHORITY.exec(target);
  if (m === null) return target;
  const rest = target.slice(m[0].length);
  return rest.charCodeAt(0) === 47 ? rest : `/${rest}`;
}
