/**
 * Configured CORS origins, brought at start-up to the form browsers send.
 *
 * A browser's Origin header is the serialisation of an origin (the HTML
 * standard): `scheme://host[:port]`, scheme and host in lower case (an
 * internationalised host in its ASCII form, an IPv4 address in dotted
 * decimal), the port only when it is not the scheme's default, and no
 * slash. A configured entry is brought to that form once, by the WHATWG URL
 * parser that browsers use, so that a request's Origin can be matched
 * exactly: one Set lookup, no per-request normalising, and nothing a
 * browser would not send (`HTTPS://APP.EXAMPLE.COM`, a trailing slash)
 * matches. An entry that is more than an origin (a path, a query, a user) is
 * refused with the reason, as a TypeError: silently cutting it down could
 * allow an origin its writer did not mean.
 *
 * @module
 */

/**
 * The browser serialisation of the origin `entry` names (`https://app.example.com`); a lone
 * trailing slash is allowed (it names the same origin). Throws TypeError, starting
 * `corsOrigins: "<entry>" is not an origin: <why>`, for anything else.
 *
 * @example
 * browserOrigin('HTTPS://App.Example.COM:443/') // => 'https://app.example.com'
 * browserOrigin('http://localhost:3000')        // => 'http://localhost:3000'
 * browserOrigin('https://app.example.com/api')  // throws TypeError (it has a path)
 */
export function browserOrigin(entry: string): string {
  const fail = (why: string): TypeError =>
    new TypeError(`corsOrigins: ${JSON.stringify(entry)} is not an origin: ${why}; write it as browsers send it, scheme://host[:port] (https://app.example.com), or * for any`);
  const text = entry.trim();
  // The authority runs to the first slash; `rest` is the path and anything after it.
  const parts = /^(https?):\/\/([^/]*)(.*)$/is.exec(text);
  if (parts === null) throw fail('it does not start with http:// or https://');
  const [, scheme = '', authority = '', rest = ''] = parts;
  if (authority.includes('@')) throw fail('it carries a user name');
  if (/[?#]/.test(authority + rest)) throw fail('it has a query or a fragment');
  if (rest !== '' && rest !== '/') throw fail(`it has a path (${JSON.stringify(rest)})`);
  let url: URL;
  try {
    // No host holds a backslash or a space; the URL parser would read a backslash as a slash.
    if (/[\\\s]/.test(authority)) throw new Error('not a host');
    url = new URL(`${scheme}://${authority}`);
  } catch {
    throw fail('its host or port is not valid');
  }
  return url.origin;
}
