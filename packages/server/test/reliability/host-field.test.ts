/**
 * The Host field (RFC 9112, section 3.2): a server MUST answer 400 to an
 * HTTP/1.1 request without Host, and to any request with more than one Host
 * field line or an invalid Host value. node:http keeps the first of two Host
 * lines and drops the rest; a Fetch runtime's Headers joins them with ", ".
 * Either way the request was answered as if for one host while whatever
 * routed it may have read the other. Refused here like a missing Host: 400
 * malformed_request, Connection: close, one `client error` log line. So is
 * a Host that is not `uri-host [":" port]` (RFC 9110, 7.2; RFC 3986): a
 * space, `/`, `@`, `\`, a control character, a bad port or IPv6 literal.
 */
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, firstResponse } from '@ipintel/testkit';
import { createFetchHandler } from '../../src/adapters/fetch.js';
import { createNodeHandler } from '../../src/adapters/node.js';
import { fieldLines } from '../../src/http/field-lines.js';
import { hostFault, hostSyntaxFault } from '../../src/http/host-field.js';
import { createKey } from '../../src/keys/manage.js';
import { resolvePlans } from '../../src/plans.js';
import { startServer, type RunningServer } from '../../src/standalone.js';
import { fixtureBytes } from '../support/fixtures.js';
import { captureLogger, tempDir } from '../support/harness.js';
import { BIG_PLANS } from '../support/keyed-server.js';

const tmp = tempDir();
const log = captureLogger();
let server: RunningServer;
/** An active key of plan `big` (no rate limit), for counted requests. */
let key: string;
beforeAll(async () => {
  server = await startServer({ port: 0, snapshot: fixtureBytes('a'), store: `sqlite:${join(tmp.dir, 'store.sqlite')}`, logger: log.logger, watch: false, sighup: false, activationDelayMs: 0, plans: BIG_PLANS, drainTimeoutMs: 100 });
  key = (await createKey(server.store, { plan: 'big', plans: resolvePlans(BIG_PLANS), now: 0 })).key;
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

/** The `client error` lines logged since `from`. */
const clientErrors = (from: number): Record<string, unknown>[] =>
  log.lines
    .slice(from)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l['msg'] === 'client error');

/** Host values that are not `uri-host [":" port]`, each with the cause its refusal is logged with. */
const INVALID_HOSTS: readonly (readonly [string, string])[] = [
  ['a b.example', 'invalid Host'],
  ['a.example/path', 'invalid Host'],
  ['user@a.example', 'invalid Host'],
  ['a\\b', 'invalid Host'],
  ['a\tb', 'invalid Host'],
  ['caf\u00e9.example', 'invalid Host'],
  ['a<b>', 'invalid Host'],
  ['a%zz', 'invalid Host'],
  ['a%4', 'invalid Host'],
  [':8080', 'invalid Host'],
  ['::1', 'invalid Host'],
  ['[::1', 'invalid Host'],
  ['[zz::1]', 'invalid Host'],
  ['[1::2::3]', 'invalid Host'],
  ['[1.2.3.4]', 'invalid Host'],
  ['[::1%25eth0]', 'invalid Host'],
  ['[v1.x]', 'invalid Host'],
  ['[]', 'invalid Host'],
  ['[::1]x', 'invalid Host'],
  ['a:x', 'invalid Host port'],
  ['a:80x', 'invalid Host port'],
  ['a:-1', 'invalid Host port'],
  ['a:65536', 'invalid Host port'],
  ['a:99999999999999999999', 'invalid Host port'],
  ['[::1]:65536', 'invalid Host port'],
];

/** Valid Host values: names (with `_`, `-`, sub-delimiters, escapes, a trailing dot), addresses, ports. */
const VALID_HOSTS = [
  'example.com',
  'EXAMPLE.com:8080',
  '127.0.0.1:3000',
  '[::1]:8080',
  '[2001:db8::1]',
  '[2001:DB8::A]',
  '[::ffff:192.0.2.1]:443',
  'my_host-1.internal',
  'example.com.',
  'ex%41mple.com',
  "a!b$c&d'e(f)g*h+i;j=k",
  'localhost:0',
  'localhost:65535',
  'localhost:08080',
  'localhost:',
];

/** Sends `raw` (its characters as bytes: Latin-1) on a new connection; the first answer, and the `client error` lines it caused. */
async function send(raw: string, port = server.port) {
  const from = log.lines.length;
  const r = await exchange(port, (s) => void s.write(Buffer.from(raw, 'latin1')));
  // The log line is written before the answer; a turn for the logger's stream.
  await new Promise((resolve) => setImmediate(resolve));
  return { res: firstResponse(r.data), errors: clientErrors(from) };
}

describe('the Node adapter (standalone server)', () => {
  for (const [what, lines, version] of [
    ['two equal Host lines', 'Host: x\r\nHost: x\r\n', '1.1'],
    ['two different Host lines', 'Host: a.example\r\nhost: b.example\r\n', '1.1'],
    ['an empty Host line and another', 'Host:\r\nHOST: x\r\n', '1.1'],
    ['three Host lines around other fields', 'host: x\r\naccept: */*\r\nhost: x\r\nuser-agent: t\r\nhost: y\r\n', '1.1'],
    ['two Host lines in HTTP/1.0', 'Host: a\r\nHost: b\r\n', '1.0'],
    ['one Host line listing two hosts', 'Host: a.example, b.example\r\n', '1.1'],
  ] as const) {
    it(`${what}: 400 malformed_request, Connection: close, one client error line`, async () => {
      const { res, errors } = await send(`GET /healthz HTTP/${version}\r\n${lines}\r\n`);
      expect(res?.status).toBe(400);
      expect(res?.headers['content-type']).toBe('application/problem+json');
      expect(res?.headers['connection']).toBe('close');
      expect(JSON.parse(res!.body)).toMatchObject({ status: 400, code: 'malformed_request', type: 'urn:ipintel:problem:malformed_request' });
      expect(JSON.parse(res!.body).detail).toMatch(/Host/);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ status: 400, code: 'malformed_request' });
      expect(errors[0]!['cause']).toMatch(/Host/);
    });
  }

  it('a missing Host (HTTP/1.1) is answered and logged the same way', async () => {
    const { res, errors } = await send('GET /healthz HTTP/1.1\r\n\r\n');
    expect(res?.status).toBe(400);
    expect(res?.headers['connection']).toBe('close');
    expect(errors).toEqual([expect.objectContaining({ code: 'malformed_request', cause: 'missing Host' })]);
  });

  it('one Host line (any case, with a port) is served; no client error is logged', async () => {
    for (const line of ['Host: x', 'host: 127.0.0.1:8080', 'HOST: [::1]:80']) {
      const { res, errors } = await send(`GET /healthz HTTP/1.1\r\n${line}\r\nconnection: close\r\n\r\n`);
      expect(res?.status).toBe(200);
      expect(errors).toEqual([]);
    }
  });

  for (const [value, cause] of INVALID_HOSTS) {
    it(`Host ${JSON.stringify(value)}: 400 malformed_request (${cause}), Connection: close, one client error line`, async () => {
      const { res, errors } = await send(`GET /healthz HTTP/1.1\r\nHost: ${value}\r\n\r\n`);
      expect(res?.status).toBe(400);
      expect(res?.headers['connection']).toBe('close');
      expect(JSON.parse(res!.body)).toMatchObject({ code: 'malformed_request', detail: expect.stringMatching(/Host/) as unknown });
      expect(errors).toEqual([expect.objectContaining({ status: 400, code: 'malformed_request', cause })]);
    });
  }

  it('every valid form of Host is served (names, addresses, ports, escapes, a trailing dot)', async () => {
    for (const value of VALID_HOSTS) {
      const { res, errors } = await send(`GET /healthz HTTP/1.1\r\nHost: ${value}\r\nconnection: close\r\n\r\n`);
      expect(res?.status, value).toBe(200);
      expect(errors).toEqual([]);
    }
  });

  it('an empty Host names no host: 400 in HTTP/1.1 (empty Host), served in HTTP/1.0 (which needs none)', async () => {
    const v11 = await send('GET /healthz HTTP/1.1\r\nHost:\r\n\r\n');
    expect(v11.res?.status).toBe(400);
    expect(v11.res?.headers['connection']).toBe('close');
    expect(v11.errors).toEqual([expect.objectContaining({ code: 'malformed_request', cause: 'empty Host' })]);
    expect((await send('GET /healthz HTTP/1.1\r\nHost:   \r\n\r\n')).res?.status).toBe(400);
    const v10 = await send('GET /healthz HTTP/1.0\r\nHost:\r\n\r\n');
    expect(v10.res?.status).toBe(200);
    expect(v10.errors).toEqual([]);
    // HTTP/1.0 needs no Host, but one it sends must be valid.
    expect((await send('GET /healthz HTTP/1.0\r\nHost: a/b\r\n\r\n')).res?.status).toBe(400);
  });

  it('a lookup with an invalid Host is refused before its key is read: nothing is counted', async () => {
    const lookup = (host: string) => send(`GET /v1/check?ip=8.8.8.8 HTTP/1.1\r\nHost: ${host}\r\nx-api-key: ${key}\r\nconnection: close\r\n\r\n`);
    const first = await lookup('ipintel.example');
    expect(first.res?.status).toBe(200);
    for (const [value] of INVALID_HOSTS) expect((await lookup(value)).res?.status).toBe(400);
    const second = await lookup('ipintel.example:8080');
    expect(second.res?.status).toBe(200);
    expect(Number(second.res!.headers['ratelimit-remaining'])).toBe(Number(first.res!.headers['ratelimit-remaining']) - 1);
  });

  it('a field whose name only resembles Host is not one', async () => {
    const { res } = await send('GET /healthz HTTP/1.1\r\nHost: x\r\nHosts: y\r\nX-Host: z\r\nHostx: w\r\nconnection: close\r\n\r\n');
    expect(res?.status).toBe(200);
  });
});

describe('the Node handler under a server whose parser lets more through', () => {
  // node:http refuses control characters in a field value (but a tab) before any handler runs;
  // an application may turn that off (insecureHTTPParser), and the handler must not rely on it.
  let lenient: Server;
  let port: number;
  beforeAll(async () => {
    const handler = createNodeHandler({ app: server.app });
    lenient = createServer({ insecureHTTPParser: true, requireHostHeader: false }, handler);
    await new Promise<void>((resolve) => lenient.listen(0, '127.0.0.1', resolve));
    port = (lenient.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => lenient.close(() => resolve())));

  for (const value of ['a\x01b', 'a\x7fb', 'a\x1bb', '\x7f', ...INVALID_HOSTS.map(([v]) => v)]) {
    it(`Host ${JSON.stringify(value)} reaches the handler and is 400 malformed_request`, async () => {
      const { res, errors } = await send(`GET /healthz HTTP/1.1\r\nHost: ${value}\r\n\r\n`, port);
      expect(res?.status).toBe(400);
      expect(res?.headers['connection']).toBe('close');
      expect(errors).toEqual([expect.objectContaining({ code: 'malformed_request', cause: expect.stringMatching(/^invalid Host/) as unknown })]);
    });
  }

  it('a valid Host is served', async () => {
    expect((await send('GET /healthz HTTP/1.1\r\nHost: [2001:db8::1]\r\nconnection: close\r\n\r\n', port)).res?.status).toBe(200);
  });
});

describe('the Fetch adapter', () => {
  it('a Host value with a comma (what Headers makes of two Host fields) is 400 malformed_request, logged once', async () => {
    const captured = captureLogger();
    const api = createFetchHandler({ snapshot: fixtureBytes('a'), store: server.store, logger: captured.logger, plans: BIG_PLANS });
    await api.ready;
    const from = captured.lines.length;
    const headers = new Headers();
    headers.append('host', 'a.example');
    headers.append('host', 'b.example');
    const res = await api(new Request('http://a.example/healthz', { headers }));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ code: 'malformed_request' });
    const lines = captured.lines.slice(from).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l['msg'] === 'client error')).toHaveLength(1);
    expect((await api(new Request('http://a.example/healthz', { headers: { host: 'a.example:8080' } }))).status).toBe(200);
    // A Fetch request need not carry Host (HTTP/2 and 3 send :authority; the URL has the host).
    expect((await api(new Request('http://a.example/healthz'))).status).toBe(200);
    await api.close();
  });

  it('an invalid Host is 400 malformed_request, logged with its cause; valid and empty ones are served', async () => {
    // On the standalone server's app: its client error lines go to the test's log.
    const api = createFetchHandler({ app: server.app });
    const get = (host: string) => api(new Request('http://a.example/healthz', { headers: { host } }));
    for (const [value, cause] of INVALID_HOSTS) {
      const from = log.lines.length;
      const res = await get(value);
      expect(res.status, value).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'malformed_request' });
      expect(clientErrors(from)).toEqual([expect.objectContaining({ code: 'malformed_request', cause })]);
    }
    for (const value of VALID_HOSTS) expect((await get(value)).status, value).toBe(200);
    // An empty Host names no host; the request's URL does (as when Host is absent).
    expect((await get('')).status).toBe(200);
    await api.close();
  });
});

describe('rules (properties)', () => {
  /** Field names: Host in any case, and names near it (other lengths, one letter off). */
  const nameArb = fc.oneof(
    fc.constantFrom('host', 'Host', 'HOST', 'hOsT', 'hosts', 'hos', 'xost', 'h-st', 'ho\rt', 'accept', 'x-api-key', 'content-type'),
    fc.string({ minLength: 1, maxLength: 8 }),
  );
  const isHost = (name: string): boolean => name.toLowerCase() === 'host';

  // The grammar (RFC 3986, 3.2.2 and 3.2.3), as generators: a name of unreserved characters,
  // sub-delimiters (but the comma) and %XX escapes; a bracketed IPv6 address in any case; a
  // port of digits (leading zeros and none allowed) up to 65535.
  const NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+;=";
  const hexArb = fc.constantFrom(...'0123456789abcdefABCDEF');
  const nameArb2 = fc
    .array(fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...NAME_CHARS) }, { weight: 1, arbitrary: fc.tuple(hexArb, hexArb).map(([a, b]) => `%${a}${b}`) }), { minLength: 1, maxLength: 30 })
    .map((parts) => parts.join(''));
  const literalArb = fc.tuple(fc.ipV6(), fc.boolean()).map(([a, upper]) => `[${upper ? a.toUpperCase() : a}]`);
  const portArb = fc.oneof(
    fc.integer({ min: 0, max: 65535 }).map(String),
    fc.tuple(fc.integer({ min: 0, max: 65535 }), fc.integer({ min: 1, max: 3 })).map(([p, zeros]) => '0'.repeat(zeros) + String(p)),
    fc.constant(''),
  );
  const validHostArb = fc
    .tuple(fc.oneof(nameArb2, fc.ipV4(), literalArb), fc.option(portArb, { nil: undefined }))
    .map(([host, port]) => (port === undefined ? host : `${host}:${port}`));
  /** Every character that may stand somewhere in a Host value; anything else never may. */
  const ALPHABET = new Set(NAME_CHARS + '%:[]');
  const outsideArb = fc.oneof(
    fc.constantFrom(' ', '/', '@', '\\', '\t', '\x00', '\x7f', '?', '#', '"', '<', '>', '^', '`', '{', '|', '}', ',', '\u00e9', '\u00a0'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).filter((c) => !ALPHABET.has(c)),
  );

  it('any Host made from the grammar is accepted, as one line of HTTP/1.1 or a Fetch value', () => {
    fc.assert(
      fc.property(validHostArb, (host) => {
        expect(hostSyntaxFault(host)).toBeUndefined();
        expect(hostFault(host, true, ['Host', host, 'accept', '*/*'])).toBeUndefined();
        expect(hostFault(host, false)).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  it('any string with a character outside the grammar is refused', () => {
    fc.assert(
      fc.property(fc.oneof(validHostArb, fc.string({ maxLength: 20 })), fc.nat(), outsideArb, (text, at, bad) => {
        const i = at % (text.length + 1);
        const host = text.slice(0, i) + bad + text.slice(i);
        expect(hostSyntaxFault(host)).toBeDefined();
        expect(hostFault(host, false)).toBeDefined();
      }),
      { numRuns: 2000 },
    );
  });

  it('a valid host followed by a comma is a list, whatever follows (what Headers makes of two lines)', () => {
    fc.assert(
      fc.property(validHostArb, fc.constantFrom(',', ', '), fc.string({ maxLength: 20 }), (first, sep, rest) => {
        expect(hostSyntaxFault(first + sep + rest)).toBe('listed Host');
      }),
      { numRuns: 1000 },
    );
  });

  it('a port is refused iff it is over 65535', () => {
    fc.assert(
      fc.property(fc.oneof(nameArb2, literalArb), fc.integer({ min: 0, max: 10_000_000 }), (host, port) => {
        expect(hostSyntaxFault(`${host}:${port}`)).toBe(port > 65535 ? 'invalid Host port' : undefined);
      }),
      { numRuns: 1000 },
    );
  });

  it('agrees with the grammar written as one regular expression, on texts made of its pieces', () => {
    // A second reading of RFC 3986's uri-host [":" port], built differently (a regular
    // expression, node:net for the IPv6 address), on texts cut from pieces of valid hosts.
    const GRAMMAR = /^(?:\[([0-9A-Fa-f:.]*)\]|((?:[A-Za-z0-9\-._~!$&'()*+;=]|%[0-9A-Fa-f]{2})+))(?::([0-9]*))?$/;
    const valid = (v: string): boolean => {
      const m = GRAMMAR.exec(v);
      return m !== null && (m[1] === undefined || isIP(m[1]) === 6) && (m[3] === undefined || Number(m[3]) <= 65535);
    };
    const pieceArb = fc.oneof(fc.constantFrom(':', '::', '[', ']', '%', '.', '1', 'ff', '65535', '65536', '0', 'a'), validHostArb, hexArb);
    fc.assert(
      fc.property(fc.array(pieceArb, { minLength: 1, maxLength: 6 }), (pieces) => {
        const host = pieces.join('');
        expect(hostSyntaxFault(host) === undefined, host).toBe(valid(host));
      }),
      { numRuns: 3000 },
    );
  });

  const valueArb = fc.oneof(validHostArb, fc.constant(''), fc.string({ maxLength: 12 }));
  const rawArb = fc.array(fc.tuple(nameArb, valueArb), { maxLength: 12 });

  it('fieldLines counts exactly the lines whose name is the field name in any case', () => {
    fc.assert(
      fc.property(rawArb, fc.integer({ min: 1, max: 4 }), (pairs, atMost) => {
        const raw = pairs.flat();
        const n = pairs.filter(([k]) => isHost(k)).length;
        expect(fieldLines(raw, 'host')).toBe(n);
        expect(fieldLines(raw, 'host', atMost)).toBe(Math.min(n, atMost));
      }),
      { numRuns: 500 },
    );
  });

  it("hostFault: missing (when required), then the first value's fault (empty when required, its syntax), then a repeat", () => {
    fc.assert(
      fc.property(rawArb, fc.boolean(), (pairs, required) => {
        const hosts = pairs.filter(([k]) => isHost(k)).map(([, v]) => v);
        // What node:http hands on: the first Host line's value.
        const fault = hostFault(hosts[0], required, pairs.flat());
        const first = hosts[0];
        const valueFault = first === undefined ? undefined : first === '' ? (required ? 'empty Host' : undefined) : hostSyntaxFault(first);
        const expected = first === undefined ? (required ? 'missing Host' : undefined) : (valueFault ?? (hosts.length > 1 ? 'repeated Host' : undefined));
        expect(fault).toBe(expected);
        // What a Fetch runtime hands on: every line joined with ", ". Refused; a list when the first is valid.
        if (hosts.length > 1) {
          const joined = hostFault(hosts.join(', '), false);
          expect(joined).toBeDefined();
          if (valueFault === undefined) expect(joined).toBe('listed Host');
        }
      }),
      { numRuns: 500 },
    );
  });
});
