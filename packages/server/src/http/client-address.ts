/**
 * The client's address behind reverse proxies (`trustProxy`): used by
 * /thirdparty/json (which answers for the caller) and written to the access
 * log.
 *
 * Without trustProxy the client is the connection's peer, and
 * X-Forwarded-For is ignored: anyone can send that header. With it, the
 * addresses are read right to left, from the peer through X-Forwarded-For
 * (all such headers, in order), and each trusted one hands over to the one
 * on its left; the first address not trusted is the client:
 *
 *   - a number N: the N nearest hops are proxies (the peer is the first);
 *     the client is N places left of the peer (or the leftmost address when
 *     there are fewer);
 *   - a list of addresses and CIDR blocks (`10.0.0.0/8`, `::1`, and the names
 *     `loopback` and `private`): an address in the list is a proxy.
 *
 * An entry that is not an address ends the walk at the proxy that wrote it.
 * IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`) count as IPv4.
 *
 * @module
 */
import { BlockList, isIP } from 'node:net';

export type TrustProxy = number | readonly string[];

const NAMED: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** An address as written in X-Forwarded-For or by the socket, without port, brackets or IPv4 mapping; undefined if not an address. */
export function plainAddress(text: string): string | undefined {
  let t = text.trim();
  const bracket = /^\[([^\]]+)\](?::\d+)?$/.exec(t);
  if (bracket !== null) t = bracket[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(t)) t = t.slice(0, t.lastIndexOf(':'));
  if (t.toLowerCase().startsWith('::ffff:') && isIP(t.slice(7)) === 4) t = t.slice(7);
  return isIP(t) === 0 ? undefined : t;
}

/**
 * The connection's peer with IPv4 mapping undone (`::ffff:10.0.0.1` -> `10.0.0.1`), as a server
 * listening on `::` sees its IPv4 clients; any other text as given. The client without trustProxy:
 * an IPv4 client must count per address in the demo quota, not in the /64 of `::ffff:0:0` that
 * every IPv4 client shares. Cheap on the request path: one character test for most peers.
 */
export function unmappedPeer(peer: string | undefined): string | undefined {
  if (peer === undefined || peer.charCodeAt(0) !== 58 /* ':' */ || !/^::ffff:/i.test(peer)) return peer;
  const v4 = peer.slice(7);
  return isIP(v4) === 4 ? v4 : peer;
}

/** `(peer, forwardedFor) => client`; throws TypeError for a bad trustProxy entry. */
export function clientAddressResolver(trust: TrustProxy | undefined): ((peer: string | undefined, forwardedFor: string | readonly string[] | undefined) => string | undefined) | undefined {
  if (trust === undefined || (Array.isArray(trust) && trust.length === 0) || trust === 0) return undefined;
  let trusted: (address: string, hop: number) => boolean;
  if (typeof trust === 'number') {
    if (!Number.isSafeInteger(trust) || trust < 0) throw new TypeError(`trustProxy: a number of proxy hops must be a whole number, got ${trust}`);
    trusted = (_a, hop) => hop < trust;
  } else {
    const list = new BlockList();
    for (const entry of (trust as readonly string[]).flatMap((e) => NAMED[e] ?? [e])) {
      const [addr = '', bits] = entry.split('/');
      const family = isIP(addr);
      const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
      if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 6 ? 128 : 32) || (bits !== undefined && !/^\d+$/.test(bits))) {
        throw new TypeError(`trustProxy: ${JSON.stringify(entry)} is not an address, a CIDR block, "loopback" or "private"`);
      }
      list.addSubnet(addr, prefix, family === 6 ? 'ipv6' : 'ipv4');
    }
    trusted = (a) => list.check(a, isIP(a) === 6 ? 'ipv6' : 'ipv4');
  }
  return (peer, forwardedFor) => {
    const self = peer === undefined ? undefined : plainAddress(peer);
    if (self === undefined || forwardedFor === undefined) return self ?? peer;
    const chain = (typeof forwardedFor === 'string' ? forwardedFor : forwardedFor.join(',')).split(',');
    let client = self;
    for (let hop = 0, i = chain.length - 1; i >= 0 && trusted(client, hop); hop++, i--) {
      const left = plainAddress(chain[i]!);
      if (left === undefined) break;
      client = left;
    }
    return client;
  };
}
