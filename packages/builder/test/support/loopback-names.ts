/**
 * Host names that resolve to 127.0.0.1, for download tests that must keep a
 * publisher's host name in the URL (the Auth-Key goes to abuse.ch hosts
 * only, so the request has to be *for* `threatfox.abuse.ch`, served by the
 * local server). Node's sockets resolve a name through `dns.lookup` of the
 * `node:dns` module at connect time; this wraps it for the given names and
 * passes every other name through. The server sees the name in `Host`, which
 * the tests check, so a Node that stopped calling `dns.lookup` fails them
 * rather than passing them. Nothing is ever sent off the machine.
 */
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';

type Callback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** Makes each of `names` resolve to 127.0.0.1 until the returned function is called. */
export function resolveToLoopback(names: readonly string[]): () => void {
  const original = dns.lookup;
  const local = new Set(names.map((n) => n.toLowerCase()));
  const lookup = (host: string, options: LookupOptions | number | Callback, callback?: Callback): void => {
    const cb = (typeof options === 'function' ? options : callback)!;
    const opts: LookupOptions = typeof options === 'object' ? options : typeof options === 'number' ? { family: options } : {};
    if (!local.has(host.toLowerCase())) return void (original as (...a: unknown[]) => void)(host, opts, cb);
    if (opts.all === true) process.nextTick(cb, null, [{ address: '127.0.0.1', family: 4 }]);
    else process.nextTick(cb, null, '127.0.0.1', 4);
  };
  dns.lookup = lookup as typeof dns.lookup;
  return () => {
    dns.lookup = original;
  };
}
