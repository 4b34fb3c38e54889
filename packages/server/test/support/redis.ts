/**
 * Redis in the server's tests: a real redis-server per suite (testkit's
 * startRedis), on a free 127.0.0.1 port, stopped after; a relay that delays
 * or cuts Redis's replies.
 *
 * Without redis-server on PATH the Redis suites fail with a clear message when
 * CI is set (CI must run them) and are skipped with a printed reason otherwise.
 */
import { connect, createServer, type Socket } from 'node:net';
import { redisAvailable, startRedis, tempDir, type RedisProcess } from '@ipintel/testkit';
import { afterAll, beforeAll, describe, it } from 'vitest';

const MISSING = 'redis-server is not on PATH: install it (apt-get install -y redis-server) to run the Redis suites';

/** `describe` that needs redis-server: fails in CI without it, skips (with a reason) elsewhere. */
export function describeRedis(name: string, fn: () => void): void {
  if (redisAvailable()) describe(name, fn);
  else if (process.env['CI']) describe(name, () => it('has redis-server', () => { throw new Error(MISSING); }));
  else {
    console.warn(`skipping "${name}": ${MISSING}`);
    describe.skip(name, fn);
  }
}

/**
 * Inside a describeRedis body: a redis-server in a temp folder of its own,
 * started before the suite's tests and stopped (the folder removed) after
 * every other afterAll of the suite. `redis` is the running server.
 */
export function suiteRedis(options: { readonly appendonly?: boolean } = {}): { readonly redis: RedisProcess; readonly dir: string } {
  const tmp = tempDir();
  let redis: RedisProcess | undefined;
  beforeAll(async () => {
    redis = await startRedis({ dir: tmp.dir, ...options });
  });
  afterAll(async () => {
    await redis?.stop();
    tmp.cleanup();
  });
  return {
    get redis(): RedisProcess {
      if (redis === undefined) throw new Error('suiteRedis: redis-server is not started yet (use it inside a test or a beforeAll)');
      return redis;
    },
    dir: tmp.dir,
  };
}

/**
 * A TCP relay to `port` whose answers (server to client) can be held back:
 * requests reach Redis at once, their replies arrive `delayMs` late. Models
 * a slow return path, where Redis has run a command before the caller gives up.
 */
export async function delayingProxy(port: number): Promise<{ url: string; delayMs: number; cut(): void; close(): void }> {
  const state = { delayMs: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (d) => upstream.write(d));
    // Replies leave in the order Redis sent them, each no sooner than its delay: when the delay is
    // lowered while replies are held, a later reply waits for the held ones (Redis's client pairs
    // replies with commands by order; one overtaking another would answer the wrong command).
    const held: Buffer[] = [];
    let lastDue = 0;
    upstream.on('data', (d: Buffer) => {
      const due = Math.max(Date.now() + state.delayMs, lastDue);
      lastDue = due;
      if (held.length === 0 && due <= Date.now()) {
        client.write(d);
        return;
      }
      held.push(d);
      setTimeout(() => {
        const next = held.shift();
        if (next !== undefined && client.writable) client.write(next);
      }, due - Date.now());
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  const proxyPort = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
  return {
    url: `redis://127.0.0.1:${proxyPort}`,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(ms: number) {
      state.delayMs = ms;
    },
    /** Breaks every connection now (replies held back are lost); new connections are relayed. */
    cut() {
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
