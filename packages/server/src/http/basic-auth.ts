/**
 * HTTP Basic credentials (RFC 7617) carrying an API key the way the provider
 * whose layout the /thirdparty routes mirror takes it: the key as the user
 * name, the password empty (`curl -u KEY:`). Parsed strictly, so a malformed
 * header is a clear 401 (auth.ts), never a 500 or a wrong key.
 *
 * @module
 */

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The key in the credentials after the `Basic` scheme name (`rest` starts with
 * the space), or `{ malformed }` with the reason.
 *
 * @example
 * basicAuthKey(' ' + btoa('ipi_live_x:')) // => 'ipi_live_x'
 * basicAuthKey(' !!')                     // => { malformed: '...' }
 */
export function basicAuthKey(rest: string): string | { malformed: string } {
  if (!/^[ \t]/.test(rest)) return { malformed: 'the Authorization header is not of the form "Basic <base64 of key:>"' };
  const token = rest.trim();
  // Padding is optional in practice; the length must still be a whole number of 4-character groups when padded.
  if (token === '' || token.length > 1024 || !BASE64.test(token) || token.length % 4 === 1) {
    return { malformed: 'the Basic credentials are not base64 of "<key>:" (send curl -u KEY:)' };
  }
  let text: string;
  try {
    text = utf8.decode(Buffer.from(token, 'base64'));
  } catch {
    return { malformed: 'the Basic credentials are not UTF-8 text' };
  }
  const colon = text.indexOf(':');
  if (colon < 0) return { malformed: 'the Basic credentials have no ":" between user and password (send curl -u KEY:)' };
  const user = text.slice(0, colon);
  if (user === '') return { malformed: 'the Basic credentials carry no user name: send the key as the user (curl -u KEY:)' };
  if (colon !== text.length - 1) return { malformed: 'the Basic credentials carry a password: send the key as the user and an empty password (curl -u KEY:)' };
  return user;
}
