/**
 * testkit's startRedis takes a server as its own only when that process
 * answers: a port taken by something else between a stop and a restart (as
 * outage.test's restarts on the same port could meet) makes start() fail
 * with the reason, instead of going on against a stranger that says PONG.
 */
import { createServer, type Server } from 'node:net';
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { describeRedis, suiteRedis } from './support/redis.js';

/** A TCP server that answers every read like a Redis that is ready: +PONG, then an INFO of another process. */
function impostor(port: number): Promise<Server> {
  const info = '# Server\r\nredis_version:7.0.0\r\nprocess_id:1\r\n';
  const server = createServer((s) => {
    s.on('data', () => s.write(`+PONG\r\n$${info.length}\r\n${info}\r\n`));
    s.on('error', () => undefined);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describeRedis('testkit startRedis', () => {
  const suite = suiteRedis();

  it('refuses a port another server holds at a restart, and starts again once it is free', async () => {
    const { redis } = suite;
    await redis.stop();
    const other = await impostor(redis.port);
    try {
      await expect(redis.start()).rejects.toThrow(/exited .* before answering on port/);
    } finally {
      await new Promise((r) => other.close(r));
    }
    await redis.start();
    const client = new Redis(redis.url);
    try {
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  });
});
