/**
 * abuse.ch's Auth-Key: since 2025 abuse.ch (ThreatFox, URLhaus,
 * MalwareBazaar, Feodo Tracker) answers its API and data exports only to a
 * request that carries the HTTP header `Auth-Key` with the user's free key
 * (https://auth.abuse.ch/).
 *
 * The rule: the key (the `abuseChAuthKey` download option, else the
 * `ABUSE_CH_AUTH_KEY` environment variable; blank = none) goes with a request
 * exactly when its parsed URL is `https:` and its hostname is `abuse.ch` or
 * ends with `.abuse.ch` (never in the clear: a redirect to plain http drops
 * it, as curl drops credentials on a change of scheme). Every request is
 * judged on its own URL: the download URL, the file a locator found, and
 * each hop of a redirect (acquire.ts follows them itself, since fetch keeps
 * custom headers across hosts). The key is never
 * put in a message, and a key an HTTP header cannot carry is refused before
 * anything is sent (fetch would quote it in its own error).
 *
 * @module
 */

/** The environment variable holding the key (the name other abuse.ch tools read too). */
export const ABUSE_CH_KEY_ENV = 'ABUSE_CH_AUTH_KEY';

/** Where a user gets a key. */
export const ABUSE_CH_AUTH_URL = 'https://auth.abuse.ch/';

/** The header abuse.ch reads the key from. */
export const ABUSE_CH_KEY_HEADER = 'Auth-Key';

/** `url` parsed (host lower-cased and IDNA-mapped, no port or user info in it), or null when it does not parse. */
function parsed(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** The host rule: `abuse.ch` or a name under it. */
function abuseChHost(u: URL): boolean {
  return u.hostname === 'abuse.ch' || u.hostname.endsWith('.abuse.ch');
}

/**
 * Whether `url`'s host is abuse.ch's: its parsed hostname is `abuse.ch` or a
 * name under it. A URL that does not parse never is.
 *
 * @example
 * isAbuseChUrl('https://threatfox.abuse.ch/export/')  // => true
 * isAbuseChUrl('https://evilabuse.ch/')                // => false
 * isAbuseChUrl('https://abuse.ch.example.com/')        // => false
 */
export function isAbuseChUrl(url: string): boolean {
  const u = parsed(url);
  return u !== null && abuseChHost(u);
}

/** Test hook: the tests' local server speaks plain http only. Never set outside tests. */
export const abuseChHooks: { plainHttp: boolean } = { plainHttp: false };

/** Whether a request to `url` carries the Auth-Key: an abuse.ch host ({@link isAbuseChUrl}) over https. */
export function mayCarryKey(url: string): boolean {
  const u = parsed(url);
  if (u === null || !abuseChHost(u)) return false;
  return u.protocol === 'https:' || (abuseChHooks.plainHttp && u.protocol === 'http:');
}

/** A key as it may be sent: visible ASCII only (fetch rejects control characters and quotes the value when it does). */
const SENDABLE = /^[\x21-\x7e]+$/;

/**
 * The key to send, from the option when given, else the environment: null
 * when blank, trimmed otherwise. `sendable` is false for a key an HTTP header
 * cannot carry.
 */
export function abuseChKey(option: string | undefined): { readonly key: string; readonly sendable: boolean } | null {
  const key = (option ?? process.env[ABUSE_CH_KEY_ENV] ?? '').trim();
  return key === '' ? null : { key, sendable: SENDABLE.test(key) };
}

/** What to tell a user whose key cannot be sent (never the key itself). */
export const UNSENDABLE_KEY = `the abuse.ch Auth-Key (${ABUSE_CH_KEY_ENV} or the abuseChAuthKey option) holds characters an HTTP header cannot carry (only visible ASCII); nothing was sent`;

/**
 * What to add to an HTTP error of `url`: for abuse.ch's 401 or 403, what to
 * do about the key; else nothing.
 */
export function refusalHint(url: string, status: number, keySent: boolean, keyHeld: boolean): string {
  if ((status !== 401 && status !== 403) || !isAbuseChUrl(url)) return '';
  if (keySent) return `: abuse.ch refused the Auth-Key in ${ABUSE_CH_KEY_ENV} (check it at ${ABUSE_CH_AUTH_URL})`;
  if (keyHeld) return ': abuse.ch requires an Auth-Key, which is sent over https only, and this URL is plain http';
  return `: abuse.ch requires an Auth-Key: set ${ABUSE_CH_KEY_ENV} to your free key from ${ABUSE_CH_AUTH_URL}`;
}
