/**
 * The Host field, as RFC 9112 (section 3.2) asks a server to check it: it
 * MUST answer 400 to an HTTP/1.1 request without Host, and to any request
 * with more than one Host field line or an invalid Host value.
 *
 * Why refuse rather than pick one: node:http keeps the first of two Host
 * lines and drops the rest, a Fetch runtime's Headers joins them into
 * `a, b`, and a proxy or cache in front may have read the last. A request
 * served for one host and routed or cached for another is the stuff of
 * cache poisoning and routing confusion; a client that sends two is broken.
 *
 * A valid value is `uri-host [":" port]` (RFC 9110, 7.2; RFC 3986, 3.2.2):
 * a bracketed IPv6 address, or a name of letters, digits, `-._~`, the
 * sub-delimiters `!$&'()*+;=` and `%XX` escapes (which covers IPv4
 * addresses, `_` and a trailing dot), then an optional port of digits up
 * to 65535. node:http refuses control characters other than a tab; a tab,
 * bytes past ASCII, a space, `/`, `@`, `\` and the like reach the adapters
 * (and a Node handler under another server, or a Fetch runtime, may pass
 * more). Three
 * choices beyond the grammar, all refusals: a comma (a sub-delimiter, but a
 * proxy may read it as a list of hosts: see hostFault), an empty name with
 * a port (`:80`: an http URI needs a host, RFC 9110, 4.2.1), and the
 * IPvFuture and zone forms of a literal (`[v1.x]`, `[fe80::1%25eth0]`: no
 * client sends them for HTTP). An empty value names no host: refused where
 * Host is required (HTTP/1.1), as if absent otherwise.
 *
 * The adapters answer a fault as a 400 malformed_request problem that
 * closes the connection, logged as one `client error` line (the client
 * erred), as node's own refusals are (client-error.ts).
 *
 * @module
 */
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import { fieldLines } from './field-lines.js';
import { problem } from './problem.js';
import type { ApiResponse } from './types.js';

/** What can be wrong with a request's Host (also the `cause` of its log line). */
export type HostFault = 'missing Host' | 'empty Host' | 'repeated Host' | 'listed Host' | 'invalid Host' | 'invalid Host port';

/** The problem detail for each fault. */
export const HOST_FAULT_DETAIL: Readonly<Record<HostFault, string>> = {
  'missing Host': 'the request is not valid HTTP/1.1 (it has no Host header)',
  'empty Host': 'the request is not valid HTTP/1.1 (its Host header is empty)',
  'repeated Host': 'the request is not valid HTTP (it has more than one Host header)',
  'listed Host': 'the request is not valid HTTP (its Host header names more than one host)',
  'invalid Host': 'the request is not valid HTTP (its Host header is not a host name, an IPv4 address or a bracketed IPv6 address, with an optional port)',
  'invalid Host port': 'the request is not valid HTTP (the port in its Host header is not a number from 0 to 65535)',
};

/**
 * The answer to a Host fault, for both adapters: a 400 malformed_request problem (the
 * adapter adds how the connection ends), logged as one `client error` line, as node's own
 * refusals are (client-error.ts): the client erred, not the server.
 */
export function hostFaultAnswer(fault: HostFault, logger: Logger, problemTypeBase: string): ApiResponse {
  logger.info({ status: 400, code: 'malformed_request', cause: fault }, 'client error');
  return problem('malformed_request', HOST_FAULT_DETAIL[fault], {}, problemTypeBase);
}

/**
 * What is wrong with a request's Host, or undefined when nothing is.
 *
 * - `host`: its value (node:http's `headers.host`, the first line; a Fetch Headers' joined value);
 * - `required`: whether the request must carry one (HTTP/1.1; a Fetch request need not: HTTP/2
 *   and 3 send `:authority` instead, and its URL holds the host anyway);
 * - `raw`: the lines as received (node's rawHeaders), where a repeat shows; a Fetch runtime has
 *   none, its repeats show as the comma of the joined value.
 *
 * A comma is refused in any case: no name a server answers for holds one (a DNS name or an
 * address cannot), so one is a list of hosts, joined by the runtime or sent so by the client.
 * The value's first fault names it: `a, b/c` is a list, `a/b, c` an invalid Host.
 *
 * Cost for a normal request: one scan of the value (hostSyntaxFault) and of the field names' lengths,
 * ~45-50 ns for a 15-30 character Host among 5 fields, ~25 ns of it the scan (measured in a loop).
 *
 * @example
 * hostFault('a', true, ['Host', 'a'])              // => undefined
 * hostFault('a', true, ['Host', 'a', 'host', 'b']) // => 'repeated Host'
 * hostFault('a, b', false)                         // => 'listed Host'
 * hostFault('a/b', false)                          // => 'invalid Host'
 */
export function hostFault(host: string | undefined, required: boolean, raw?: readonly string[]): HostFault | undefined {
  if (host === undefined) return required ? 'missing Host' : undefined;
  const fault = host === '' ? (required ? 'empty Host' : undefined) : hostSyntaxFault(host);
  if (fault !== undefined) return fault;
  return raw !== undefined && fieldLines(raw, 'host', 2) > 1 ? 'repeated Host' : undefined;
}

/** Character classes, bits of CHAR_CLASS. */
const NAME = 1; // may stand in a name: unreserved and sub-delims (RFC 3986), but the comma
const HEX = 2; // a hex digit (of a %XX escape)
const LITERAL = 4; // may stand in an IPv6 literal: a hex digit, ':' or '.'

/** The class bits of each ASCII character; anything past ASCII has none. */
const CHAR_CLASS = /*#__PURE__*/ (() => {
  const t = new Uint8Array(128);
  const set = (chars: string, bits: number): void => {
    for (let i = 0; i < chars.length; i++) t[chars.charCodeAt(i)]! |= bits;
  };
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  set(letters + letters.toUpperCase() + '0123456789' + "-._~!$&'()*+;=", NAME);
  set('0123456789abcdefABCDEF', HEX | LITERAL);
  set(':.', LITERAL);
  return t;
})();

/** The class bits of the character code `c`. */
const classOf = (c: number): number => (c < 128 ? CHAR_CLASS[c]! : 0);

/**
 * The fault of a non-empty Host value's syntax (`uri-host [":" port]`, module comment), or
 * undefined when it has none. One pass over the value, a table look-up a character; the
 * characters of a bracketed literal are then read once more, by node:net's isIP.
 *
 * @example
 * hostSyntaxFault('[::1]:8080')   // => undefined
 * hostSyntaxFault('a.example, b') // => 'listed Host'
 * hostSyntaxFault('a@b')          // => 'invalid Host'
 * hostSyntaxFault('a:65536')      // => 'invalid Host port'
 */
export function hostSyntaxFault(v: string): Exclude<HostFault, 'missing Host' | 'empty Host' | 'repeated Host'> | undefined {
  const n = v.length;
  let i = 0;
  // 1. The host: a bracketed IPv6 address, or a name (which covers an IPv4 address).
  if (v.charCodeAt(0) === 0x5b /* [ */) {
    i = 1;
    while (i < n && (classOf(v.charCodeAt(i)) & LITERAL) !== 0) i++;
    if (v.charCodeAt(i) !== 0x5d /* ] */ || isIP(v.slice(1, i)) !== 6) return stopFault(v, i);
    i++;
  } else {
    for (; i < n; i++) {
      const c = v.charCodeAt(i);
      // The table read in place, not through classOf: the loop of every request (~5 ns a request).
      if (c < 128 && (CHAR_CLASS[c]! & NAME) !== 0) continue;
      if (c !== 0x25 /* % */ || (classOf(v.charCodeAt(i + 1)) & classOf(v.charCodeAt(i + 2)) & HEX) === 0) break;
      i += 2;
    }
    if (i === 0) return stopFault(v, i); // no name: `:80`, or a first character no name has
  }
  // 2. The port: `:` and digits up to 65535 (the grammar allows leading zeros, and no digits: the default port).
  if (i === n) return undefined;
  if (v.charCodeAt(i) !== 0x3a /* : */) return stopFault(v, i);
  let port = 0;
  for (i++; i < n; i++) {
    const d = v.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return v.charCodeAt(i) === 0x2c ? 'listed Host' : 'invalid Host port';
    port = port * 10 + d;
    if (port > 65535) return 'invalid Host port';
  }
  return undefined;
}

/** The fault of a value whose scan stopped at `i`: a comma there makes it a list. */
function stopFault(v: string, i: number): 'listed Host' | 'invalid Host' {
  return v.charCodeAt(i) === 0x2c /* , */ ? 'listed Host' : 'invalid Host';
}
