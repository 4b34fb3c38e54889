/**
 * The Redis store's URL, `redis://[[user]:password@]host[:port][/db]`
 * (`rediss://` for TLS): checked at start-up, before ioredis reads it, and
 * shown in logs without its credentials.
 *
 * Why check it here: ioredis parses it with WHATWG URL, which ends the
 * authority at the first `/`, `?` or `#`. A password holding one of them
 * unencoded either makes ioredis throw a bare `TypeError: Invalid URL`
 * whose `input` property holds the whole URL, password included (printed by
 * anything that inspects the error), or worse, parses: `redis://u:12/x@h` is
 * host `u`, port 12, and no password. A `%` that starts no escape throws a
 * URIError; `/notanumber` as the database is read as no database. Each is
 * refused with a TypeError (how the server types configuration errors) that
 * says what to write instead.
 *
 * The credentials are everything up to the LAST `@`, as ioredis (WHATWG URL)
 * reads a password with an unencoded `@`; the same rule hides them in logs.
 * No message quotes the credentials, the port or the database as written
 * (a password put where they go must not show either): only the scheme and
 * the host.
 *
 * The query: ioredis merges every query option into its connection options,
 * as a string, AHEAD of the options the store passes (lodash `defaults`, URL
 * first). So `?enableOfflineQueue=false` turned the store's offline queue ON
 * ("false" is truthy), and `?keyPrefix=x` moved every key. Only the options
 * a URL is for are taken (QUERY_OPTIONS), each once and with a value that
 * means what it says; any other is refused.
 *
 * @module
 */

/**
 * Characters credentials cannot hold unencoded, with their escapes: `/ ? #` end the URL's
 * authority (and so cut the password), and WHATWG URL drops a tab or a line break wherever it
 * stands (a password read without it would fail to authenticate, or worse, match another).
 */
const UNENCODABLE: Readonly<Record<string, string>> = { '/': '%2F', '?': '%3F', '#': '%23', '\t': '%09', '\n': '%0A', '\r': '%0D' };

/** Query options the store takes from the URL, and what each holds. */
const QUERY_OPTIONS: Readonly<Record<string, string>> = {
  family: 'the IP family to connect with: 4, 6, or 0 for either',
  db: 'the database number (or write it as the path: /2)',
  username: 'the user name',
  password: 'the password',
  connectionName: 'the name Redis shows for the connection (CLIENT SETNAME): printable ASCII, no spaces',
};

/**
 * ioredis options a URL could set: named when refused (the name of an unknown one is not
 * quoted, as a password typed into the query must not show).
 */
const IOREDIS_OPTIONS = new Set([
  'enableOfflineQueue', 'enableAutoPipelining', 'maxRetriesPerRequest', 'connectTimeout', 'retryStrategy', 'commandTimeout',
  'keyPrefix', 'lazyConnect', 'tls', 'readOnly', 'enableReadyCheck', 'autoResubscribe', 'autoResendUnfulfilledCommands',
  'keepAlive', 'noDelay', 'socketTimeout', 'sentinels', 'sentinelPassword', 'name', 'role', 'host', 'port', 'path',
]);

/** The largest database index Redis takes (`SELECT` reads an int). */
const MAX_DB = 2 ** 31 - 1;

/**
 * The store URL for logs: everything up to the LAST `@` is credentials. A
 * password written with an unencoded `@` (which ioredis accepts) must not
 * show its tail; an `@` later in the URL only hides a little more than needed.
 * ioredis also reads `?password=` (and `?username=`) from the query: hidden too.
 *
 * @example
 * withoutCredentials('redis://:p@ss@10.0.0.5:6379/0') // => 'redis://***@10.0.0.5:6379/0'
 * withoutCredentials('redis://10.0.0.5?password=x')   // => 'redis://10.0.0.5?password=***'
 */
export function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/).*@/i, '$1***@').replace(/([?&](?:password|username)=)[^&#]*/gi, '$1***');
}

/**
 * Throws a TypeError saying what is wrong with a Redis store URL, if anything; never quotes
 * the credentials. Accepts what ioredis reads as written: a missing port (6379), an empty
 * password, a password with `@` or `:`, `rediss://`, and the query options a URL is for, each
 * once (`?family=6`, `?db=2`, `?username=`, `?password=`, `?connectionName=`).
 *
 * @example
 * checkRedisUrl('redis://:s3cret@10.0.0.5:6379/2') // passes
 * checkRedisUrl('redis://:p/ss@host:6379')
 * // TypeError: Redis store URL redis://***@host: the password holds an unencoded "/": percent-encode it as %2F
 */
export function checkRedisUrl(url: string): void {
  const scheme = /^(rediss?):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) throw new TypeError('a Redis store URL starts with redis:// (or rediss:// for TLS), e.g. redis://127.0.0.1:6379');
  const rest = url.slice(scheme.length + 3);
  const at = rest.lastIndexOf('@');
  const credentials = at < 0 ? undefined : rest.slice(0, at);
  const afterCredentials = rest.slice(at + 1);
  const end = afterCredentials.search(/[/?#]/);
  const authority = end < 0 ? afterCredentials : afterCredentials.slice(0, end);
  const { host, port } = splitAuthority(authority);
  const fail = (why: string): TypeError => new TypeError(`Redis store URL ${scheme}://${credentials === undefined ? '' : '***@'}${host}: ${why}`);

  if (credentials !== undefined) {
    const colon = credentials.indexOf(':');
    for (let i = 0; i < credentials.length; i++) {
      const c = credentials[i]!;
      const part = colon < 0 || i < colon ? 'user name' : 'password';
      const escape = UNENCODABLE[c];
      if (escape !== undefined) throw fail(`the ${part} holds an unencoded ${JSON.stringify(c)}: percent-encode it as ${escape}`);
      if (c === '%' && !/^[0-9a-f]{2}$/i.test(credentials.slice(i + 1, i + 3))) {
        throw fail(`the ${part} holds a "%" that starts no %XX escape: percent-encode it as %25`);
      }
    }
  }
  if (/[\t\n\r]/.test(afterCredentials)) throw fail('it holds a tab or a line break (which URL parsing drops): remove it');
  if (host === '') throw fail('it names no host: write redis://HOST[:PORT], e.g. redis://127.0.0.1:6379');
  if (host.includes(':') && !host.startsWith('[')) throw fail('an IPv6 address goes in brackets, e.g. redis://[::1]:6379');
  if (port !== undefined && port !== '' && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
    throw fail('the port is not a number from 1 to 65535 (redis://HOST:PORT; 6379 when left out)');
  }
  const path = end < 0 || afterCredentials[end] !== '/' ? '' : afterCredentials.slice(end + 1).replace(/[?#].*$/s, '');
  if (path !== '' && !(/^\d{1,10}$/.test(path) && Number(path) <= MAX_DB)) {
    throw fail('the path is not a database number (redis://HOST:PORT/DB, e.g. /2; database 0 when left out)');
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not the URL's own error: its `input` would carry the password.
    throw fail('the host is not a host name or a bracketed IPv6 address');
  }
  try {
    decodeURIComponent(parsed.username);
    decodeURIComponent(parsed.password);
  } catch {
    throw fail('the user name or password holds %XX escapes that are not UTF-8 (write a "%" as %25)');
  }
  // ioredis takes both user name and password from the authority when it holds either.
  const credentialsGiven = parsed.username !== '' || parsed.password !== '';
  checkQuery(parsed.searchParams, { db: path !== '', username: credentialsGiven, password: credentialsGiven }, fail);
}

/**
 * Refuses a query option ioredis would read against the store's intent (see the module's
 * comment), one given twice (in the query, or also in the URL's authority or path: ioredis
 * would silently keep one), and a value that does not mean what it says.
 */
function checkQuery(query: URLSearchParams, inAuthorityOrPath: Readonly<Record<string, boolean>>, fail: (why: string) => TypeError): void {
  const seen = new Set<string>();
  const takes = `the store takes ${Object.keys(QUERY_OPTIONS).join(', ')} from the query, and sets the connection's other options itself`;
  for (const [name, value] of query) {
    if (!Object.hasOwn(QUERY_OPTIONS, name)) {
      throw fail(IOREDIS_OPTIONS.has(name) ? `the query option ${name} is not taken (${takes}): remove it` : `the query holds an option the store does not know (${takes}): remove it`);
    }
    if (seen.has(name) || inAuthorityOrPath[name] === true) throw fail(`${name} is given twice (ioredis would keep one silently): give it once`);
    seen.add(name);
    const bad =
      (name === 'family' && !['0', '4', '6'].includes(value)) ||
      (name === 'db' && !(/^\d{1,10}$/.test(value) && Number(value) <= MAX_DB)) ||
      (name === 'connectionName' && !/^[!-~]+$/.test(value));
    if (bad) throw fail(`the query option ${name} must be ${QUERY_OPTIONS[name]}`);
  }
}

/** The host and port (undefined without a `:`) of an authority without credentials. */
function splitAuthority(authority: string): { host: string; port: string | undefined } {
  const close = authority.startsWith('[') ? authority.indexOf(']') : -1;
  const colon = authority.indexOf(':', close + 1);
  // An unbracketed IPv6 address has several colons: all of it is the host (refused as such).
  if (colon < 0 || (close < 0 && authority.indexOf(':', colon + 1) >= 0)) return { host: authority, port: undefined };
  return { host: authority.slice(0, colon), port: authority.slice(colon + 1) };
}
