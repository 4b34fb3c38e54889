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
 * The adapters answer a fault as a 400 malformed_request problem that
 * closes the connection, logged as one `client error` line (the client
 * erred), as node's own refusals are (client-error.ts).
 *
 * @module
 */
import { fieldLines } from './field-lines.js';

/** What can be wrong with a request's Host (also the `cause` of its log line). */
export type HostFault = 'missing Host' | 'repeated Host' | 'listed Host';

/** The problem detail for each fault. */
export const HOST_FAULT_DETAIL: Readonly<Record<HostFault, string>> = {
  'missing Host': 'the request is not valid HTTP/1.1 (it has no Host header)',
  'repeated Host': 'the request is not valid HTTP (it has more than one Host header)',
  'listed Host': 'the request is not valid HTTP (its Host header names more than one host)',
};

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
 *
 * Cost for a normal request: a scan of the value for a comma and of the field names' lengths.
 *
 * @example
 * hostFault('a', true, ['Host', 'a'])              // => undefined
 * hostFault('a', true, ['Host', 'a', 'host', 'b']) // => 'repeated Host'
 * hostFault('a, b', false)                         // => 'listed Host'
 */
export function hostFault(host: string | undefined, required: boolean, raw?: readonly string[]): HostFault | undefined {
  if (host === undefined) return required ? 'missing Host' : undefined;
  if (host.includes(',')) return 'listed Host';
  return raw !== undefined && fieldLines(raw, 'host', 2) > 1 ? 'repeated Host' : undefined;
}
