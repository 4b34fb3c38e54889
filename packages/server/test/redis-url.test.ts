/**
 * The Redis store's URL (store/redis-url.ts): the forms users write are
 * either read by ioredis as written, or refused at start-up with a
 * TypeError that names the problem and never shows the password. Before,
 * `redis://:p/ss@host` made ioredis throw a bare `Invalid URL` whose
 * `input` held the password, and `redis://u:12/ss@host` connected to host
 * `u`, port 12, without a password. No test here needs a running Redis but
 * the last suite, which shows that the advice given (percent-encode) works.
 */
import fc from 'fast-check';
import { inspect } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../src/standalone.js';
import { openStoreSync } from '../src/store/open.js';
import { openRedisStore } from '../src/store/redis.js';
import { checkRedisUrl } from '../src/store/redis-url.js';
import { createKey } from '../src/keys/manage.js';
import { resolvePlans } from '../src/plans.js';
import { fixtureBytes } from './support/fixtures.js';
import { TEST_PLANS } from './support/harness.js';
import { describeRedis, suiteRedis } from './support/redis.js';

/** What ioredis reads from `url` (lazyConnect: nothing is sent). */
function ioredisReads(url: string): Record<string, unknown> {
  const r = new Redis(url, { lazyConnect: true });
  const o = r.options;
  r.disconnect();
  return {
    host: o.host,
    port: o.port,
    db: o.db,
    password: o.password ?? null,
    username: o.username ?? null,
    tls: o.tls !== undefined,
    family: o.family ?? null,
    connectionName: o.connectionName ?? null,
  };
}

/** The error openStoreSync throws for `spec`; fails the test when none is thrown. */
function refusal(spec: string): Error {
  try {
    openStoreSync(spec).close().catch(() => {});
  } catch (e) {
    return e as Error;
  }
  throw new Error(`${spec} was accepted`);
}

const SECRET = 'Zq7-secret';

describe('refused at start-up, before connecting, naming the problem', () => {
  for (const [spec, why] of [
    [`redis://:${SECRET}/x@127.0.0.1:6379`, /password holds an unencoded "\/": percent-encode it as %2F/],
    [`redis://:${SECRET}?x@127.0.0.1:6379`, /password holds an unencoded "\?": percent-encode it as %3F/],
    [`redis://:${SECRET}#x@127.0.0.1:6379`, /password holds an unencoded "#": percent-encode it as %23/],
    [`redis://admin/ops:${SECRET}@127.0.0.1`, /user name holds an unencoded "\/"/],
    // Parsed by ioredis as host "user", port 12, no password.
    [`redis://user:12/${SECRET}@127.0.0.1:6379`, /password holds an unencoded "\/"/],
    [`redis://:${SECRET}%zz@127.0.0.1`, /password holds a "%" that starts no %XX escape: percent-encode it as %25/],
    [`redis://:${SECRET}%@127.0.0.1`, /a "%" that starts no %XX escape/],
    [`redis://:${SECRET}%FF@127.0.0.1`, /%XX escapes that are not UTF-8/],
    ['redis://127.0.0.1:99999', /port is not a number from 1 to 65535/],
    ['redis://127.0.0.1:0', /port is not a number from 1 to 65535/],
    ['redis://127.0.0.1:abc', /port is not a number from 1 to 65535/],
    ['redis://127.0.0.1:-1', /port is not a number from 1 to 65535/],
    ['redis://127.0.0.1:6379/notanumber', /path is not a database number/],
    ['redis://127.0.0.1/notanumber', /path is not a database number/],
    ['redis://127.0.0.1:6379/2/3', /path is not a database number/],
    ['redis://127.0.0.1:6379/-1', /path is not a database number/],
    ['redis://127.0.0.1:6379/99999999999', /path is not a database number/],
    ['redis://', /names no host/],
    [`redis://:${SECRET}@:6379`, /names no host/],
    ['redis://::1:6379', /IPv6 address goes in brackets/],
    ['redis://[zz]:6379', /not a host name or a bracketed IPv6 address/],
    ['redis://ho st:6379', /not a host name or a bracketed IPv6 address/],
    // No `//`: was taken for a SQLite file named "redis:127.0.0.1:6379".
    ['redis:127.0.0.1:6379', /starts with redis:\/\//],
    [`rediss:${SECRET}@127.0.0.1`, /starts with redis:\/\//],
    // ioredis puts query options ahead of the store's own, as strings: "false" turned the offline queue on.
    ['redis://127.0.0.1:6379?enableOfflineQueue=false', /the query option enableOfflineQueue is not taken \(the store takes family, db, username, password, connectionName from the query/],
    ['redis://127.0.0.1?keyPrefix=other:', /the query option keyPrefix is not taken/],
    ['redis://127.0.0.1?tls=true', /the query option tls is not taken/],
    // A name that is no ioredis option is not quoted: it may be a password typed in the wrong place.
    [`redis://127.0.0.1?${SECRET}`, /the query holds an option the store does not know/],
    [`redis://127.0.0.1?pasword=${SECRET}`, /the query holds an option the store does not know/],
    ['redis://127.0.0.1?family=5', /the query option family must be the IP family to connect with: 4, 6, or 0/],
    ['redis://127.0.0.1?family=IPv6', /the query option family must be/],
    ['redis://127.0.0.1?family=4&family=6', /family is given twice/],
    ['redis://127.0.0.1?db=x', /the query option db must be the database number/],
    ['redis://127.0.0.1?db=-1', /the query option db must be the database number/],
    // ioredis keeps the path's database and drops the query's without a word.
    ['redis://127.0.0.1/2?db=3', /db is given twice/],
    // ioredis takes both credentials from the authority when it holds either: this connected without a password.
    [`redis://user@127.0.0.1?password=${SECRET}`, /password is given twice/],
    [`redis://:${SECRET}@127.0.0.1?username=ops`, /username is given twice/],
    ['redis://127.0.0.1?connectionName=my%20api', /the query option connectionName must be .*no spaces/],
    ['redis://127.0.0.1?connectionName=', /the query option connectionName must be/],
  ] as const) {
    it(`${spec.replace(SECRET, 'SECRET')}: ${why.source}`, () => {
      const e = refusal(spec);
      expect(e).toBeInstanceOf(TypeError);
      expect(e.message).toMatch(why);
      expect(e.message).toMatch(/^(Redis store URL rediss?:\/\/|a Redis store URL)/);
      // Nothing that prints the error shows the password: no cause, no input.
      expect(inspect(e)).not.toContain(SECRET);
      expect(JSON.stringify(e)).not.toContain(SECRET);
      expect(e.cause).toBeUndefined();
    });
  }

  it('the message shows the scheme and the host, with *** for the credentials', () => {
    expect(refusal(`rediss://:${SECRET}/x@redis.internal:6380/1`).message).toBe(
      'Redis store URL rediss://***@redis.internal: the password holds an unencoded "/": percent-encode it as %2F',
    );
    // A password written where the host goes (`@host` forgotten) does not show as the port.
    expect(refusal(`redis://user:${SECRET}`).message).toBe('Redis store URL redis://user: the port is not a number from 1 to 65535 (redis://HOST:PORT; 6379 when left out)');
  });

  it('an unknown scheme names the store without its password', () => {
    const e = refusal(`memcached://admin:${SECRET}@127.0.0.1:11211`);
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe('unknown store "memcached://***@127.0.0.1:11211": use sqlite:PATH or redis://HOST:PORT');
  });

  it('openRedisStore (the API) refuses the same way', () => {
    expect(() => openRedisStore(`redis://:${SECRET}/x@127.0.0.1:1`)).toThrow(/password holds an unencoded "\/"/);
    expect(() => openRedisStore('http://127.0.0.1:1')).toThrow(/starts with redis:\/\//);
  });

  it('startServer fails with the TypeError', async () => {
    const started = startServer({ port: 0, snapshot: fixtureBytes('a'), store: `redis://:${SECRET}/x@127.0.0.1:6379`, logger: false, watch: false, sighup: false });
    const e = await started.then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(e).toBeInstanceOf(TypeError);
    expect(e!.message).toMatch(/percent-encode it as %2F/);
    expect(inspect(e)).not.toContain(SECRET);
  });
});

describe('accepted as written, read by ioredis as the user meant', () => {
  const handles: { close(): Promise<void> }[] = [];
  afterAll(() => Promise.all(handles.map((h) => h.close())));

  for (const [spec, reads, shown] of [
    ['redis://127.0.0.1', { host: '127.0.0.1', port: 6379, db: 0, password: null }, 'redis://127.0.0.1'],
    ['redis://127.0.0.1:1', { host: '127.0.0.1', port: 1, db: 0 }, 'redis://127.0.0.1:1'],
    ['redis://127.0.0.1:1/2', { port: 1, db: 2 }, 'redis://127.0.0.1:1/2'],
    ['redis://127.0.0.1:1/', { port: 1, db: 0 }, 'redis://127.0.0.1:1/'],
    ['redis://127.0.0.1:', { port: 6379 }, 'redis://127.0.0.1:'],
    ['rediss://127.0.0.1:1', { port: 1, tls: true }, 'rediss://127.0.0.1:1'],
    ['REDIS://127.0.0.1:1', { port: 1 }, 'REDIS://127.0.0.1:1'],
    ['redis://[::1]:1', { host: '::1', port: 1 }, 'redis://[::1]:1'],
    [`redis://:${SECRET}%2Fx@127.0.0.1:1`, { password: `${SECRET}/x` }, 'redis://***@127.0.0.1:1'],
    // An unencoded @ is read as part of the password (WHATWG URL), and hidden up to the last @.
    [`redis://user:${SECRET}@x@127.0.0.1:1`, { username: 'user', password: `${SECRET}@x`, host: '127.0.0.1' }, 'redis://***@127.0.0.1:1'],
    [`redis://:${SECRET}:x@127.0.0.1:1`, { password: `${SECRET}:x` }, 'redis://***@127.0.0.1:1'],
    ['redis://127.0.0.1:1/0?family=4', { port: 1, db: 0 }, 'redis://127.0.0.1:1/0?family=4'],
    // ioredis takes a password from the query too; the logs do not show it.
    [`redis://127.0.0.1:1?family=4&password=${SECRET}`, { password: SECRET }, 'redis://127.0.0.1:1?family=4&password=***'],
    ['redis://127.0.0.1:1?family=6', { family: 6 }, 'redis://127.0.0.1:1?family=6'],
    ['redis://127.0.0.1:1?db=3', { db: 3 }, 'redis://127.0.0.1:1?db=3'],
    ['redis://127.0.0.1:1?connectionName=ipintel-api', { connectionName: 'ipintel-api' }, 'redis://127.0.0.1:1?connectionName=ipintel-api'],
    [`redis://127.0.0.1:1?username=ops&password=${SECRET}`, { username: 'ops', password: SECRET }, 'redis://127.0.0.1:1?username=***&password=***'],
  ] as const) {
    it(`${spec.replace(SECRET, 'SECRET')}`, () => {
      expect(() => checkRedisUrl(spec)).not.toThrow();
      expect(ioredisReads(spec)).toMatchObject(reads);
      const store = openStoreSync(spec, { onEvent: () => {} });
      handles.push(store);
      expect(store.location).toBe(shown);
    });
  }
});

it("why the query is checked: ioredis lets a URL's query override the options the store passes, as strings", () => {
  // If this stops holding (a new ioredis), the refusals above may be loosened, not the other way round.
  const r = new Redis('redis://127.0.0.1:1?enableOfflineQueue=false', { lazyConnect: true, enableOfflineQueue: false });
  const taken = r.options.enableOfflineQueue as unknown;
  r.disconnect();
  expect(taken).toBe('false');
});

describe('rules (properties)', () => {
  it('a query either leaves every option the store sets as the store set it, or is refused without showing a value', () => {
    const retryStrategy = (): number => 50;
    const storeOptions = { lazyConnect: true, enableOfflineQueue: false, enableAutoPipelining: true, maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy };
    const read = (url: string): Record<string, unknown> => {
      const r = new Redis(url, storeOptions);
      const { family, db, username, password, connectionName, ...rest } = r.options as unknown as Record<string, unknown>;
      r.disconnect();
      void [family, db, username, password, connectionName];
      return rest;
    };
    const plain = read('redis://127.0.0.1:6380');
    const name = fc.oneof(
      fc.constantFrom('family', 'db', 'username', 'password', 'connectionName', 'enableOfflineQueue', 'keyPrefix', 'maxRetriesPerRequest', 'connectTimeout', 'tls', 'lazyConnect', 'host', 'port'),
      fc.string({ maxLength: 8 }),
    );
    const value = fc.oneof(fc.constantFrom('0', '4', '6', '2', 'false', 'true', 'x'), fc.string({ maxLength: 6 }).map((v) => SECRET + v));
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), { maxLength: 4 }), (pairs) => {
        const url = `redis://127.0.0.1:6380?${new URLSearchParams(pairs).toString()}`;
        let error: unknown;
        try {
          checkRedisUrl(url);
        } catch (e) {
          error = e;
        }
        if (error === undefined) expect(read(url)).toEqual(plain);
        else {
          expect(error).toBeInstanceOf(TypeError);
          expect(inspect(error)).not.toContain(SECRET);
        }
      }),
      { numRuns: 500 },
    );
  });

  // A password the user means (any characters), written with each character either
  // percent-encoded or as is ('%' always encoded: a raw "%41" means "A" in any URL).
  const writtenPassword = fc
    .array(fc.tuple(fc.oneof(fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), fc.boolean()), {
      minLength: 1,
      maxLength: 16,
    })
    .map((chars) => ({
      meant: SECRET + chars.map(([c]) => c).join(''),
      written: SECRET + chars.map(([c, encode]) => (encode || c === '%' ? encodeURIComponent(c) : c)).join(''),
    }));

  it('a password is either read by ioredis exactly as meant, or refused without showing it', () => {
    fc.assert(
      fc.property(writtenPassword, fc.constantFrom('', '/3'), ({ meant, written }, db) => {
        const url = `redis://:${written}@127.0.0.1:6380${db}`;
        let error: unknown;
        try {
          checkRedisUrl(url);
        } catch (e) {
          error = e;
        }
        // Refused exactly when a character that ends the authority (/ ? #) or that WHATWG URL
        // drops (tab, line feed, carriage return) was left unencoded.
        expect(error !== undefined).toBe(/[/?#\t\n\r]/.test(written));
        if (error === undefined) {
          expect(ioredisReads(url)).toMatchObject({ host: '127.0.0.1', port: 6380, db: db === '' ? 0 : 3, password: meant });
        } else {
          expect(error).toBeInstanceOf(TypeError);
          expect(inspect(error)).not.toContain(SECRET);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describeRedis('the advice works: a percent-encoded password and a database number reach Redis', () => {
  const suite = suiteRedis();
  const PASSWORD = 'p/ss?w#rd@%';
  let admin: Redis | undefined;
  afterAll(async () => {
    await admin?.quit();
  });

  it('redis://:<encoded>@host:port/2 authenticates, and keys go to database 2', async () => {
    admin = new Redis(suite.redis.url);
    await admin.config('SET', 'requirepass', PASSWORD);
    const url = `redis://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${suite.redis.port}/2`;
    const store = openRedisStore(url, { onEvent: () => {} });
    try {
      await store.whenReady(5000);
      expect(store.location).toBe(`redis://***@127.0.0.1:${suite.redis.port}/2`);
      await createKey(store, { plan: 'test', plans: resolvePlans(TEST_PLANS), now: 0 });
      expect(await store.listKeys()).toHaveLength(1);
      await admin.select(2);
      expect(await admin.dbsize()).toBeGreaterThan(0);
      await admin.select(0);
      expect(await admin.dbsize()).toBe(0);
    } finally {
      await store.close();
    }
  });
});
