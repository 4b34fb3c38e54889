/**
 * The real `node-ipinfo` client against a server on 127.0.0.1, changed only in
 * its base URL: its lookup, batch and field calls answer what
 * `check(ip, { format: 'thirdparty' })` says, quota counting is exact, and
 * curl-style Basic auth works over the wire.
 */
import { join } from 'node:path';
import { open, type IpIntel, type ThirdPartyResult } from '@ipintel/core';
import { steadyClock } from '@ipintel/testkit';
import { IPinfoWrapper, LruCache } from 'node-ipinfo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/keys/manage.js';
import { resolvePlans } from '../src/plans.js';
import { startServer, type RunningServer } from '../src/standalone.js';
import { tempDir } from './support/harness.js';
import { ANYCAST_IP, BOGON_IP, thirdpartyFixtureBytes, VPN_EXIT, VPN_EXIT_SERVICE } from './support/thirdparty-fixture.js';

const PLANS = { big: { quota: 100_000, period: 'day' as const, ratePerSecond: 0 }, six: { quota: 6, period: 'day' as const, ratePerSecond: 0 } };

let server: RunningServer;
let intel: IpIntel;
let tmp: { dir: string; cleanup: () => void };

beforeAll(async () => {
  tmp = tempDir();
  // Quotas count per UTC day: a clock from noon of a fixed day, so no count starts again mid-test at midnight.
  server = await startServer({ port: 0, snapshot: thirdpartyFixtureBytes(), store: `sqlite:${join(tmp.dir, 's.sqlite')}`, plans: PLANS, logger: false, watch: false, activationDelayMs: 0, drainTimeoutMs: 100, now: steadyClock() });
  intel = await open(thirdpartyFixtureBytes());
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const newKey = async (plan: string): Promise<string> => (await createKey(server.store, { plan, plans: resolvePlans(PLANS), now: 0 })).key;
/** A client as its users make one, with only the base URL changed (and a fresh cache, so every call reaches the server). */
const client = (key: string): IPinfoWrapper => new IPinfoWrapper(key, new LruCache(), undefined, undefined, `${server.url}/thirdparty`);
const expected = (ip: string): ThirdPartyResult => intel.check(ip, { format: 'thirdparty' });
/** Lookups left on a key, read from a one-lookup request's RateLimit-Remaining (so one more than before it). */
const remainingBefore = async (key: string): Promise<number> =>
  Number((await fetch(`${server.url}/thirdparty/8.8.8.8/ip`, { headers: { authorization: `Bearer ${key}` } })).headers.get('ratelimit-remaining')) + 1;

/** What the client reports for a result: it renames `country` to `countryCode` and adds names; the rest is as sent. */
function asSent(got: Record<string, unknown>): Record<string, unknown> {
  const { countryCode, country: _name, countryFlag: _f, countryFlagURL: _u, countryCurrency: _c, continent: _k, isEU: _eu, ...rest } = got;
  return countryCode === undefined ? rest : { ...rest, country: countryCode };
}

describe('node-ipinfo against the /thirdparty alias', () => {
  it('lookupIp answers what check(ip, { format: "thirdparty" }) says', async () => {
    const c = client(await newKey('big'));
    for (const ip of ['8.8.8.8', '2001:4860::1', VPN_EXIT, ANYCAST_IP]) {
      const got = (await c.lookupIp(ip)) as unknown as Record<string, unknown>;
      expect(asSent(got), ip).toEqual(expected(ip));
    }
    const vpn = await c.lookupIp(VPN_EXIT);
    expect(vpn.privacy?.service).toBe(VPN_EXIT_SERVICE);
    expect(vpn.privacy?.vpn).toBe(true);
    expect((await c.lookupIp('8.8.8.8')).countryCode).toBe('US');
  });

  it('getBatch answers whole results and fields as check() does, bogons with bogon: true', async () => {
    const key = await newKey('big');
    const before = await remainingBefore(key);
    const paths = ['8.8.8.8', '8.8.8.8/country', BOGON_IP, `${BOGON_IP}/bogon`, `${VPN_EXIT}/privacy/service`, '2001:4860::1/org', 'not-an-ip'];
    const batch = (await client(key).getBatch(paths)) as unknown as Record<string, any>;
    expect(asSent(batch['8.8.8.8'])).toEqual(expected('8.8.8.8'));
    expect(batch['8.8.8.8/country']).toBe(expected('8.8.8.8').country);
    expect(asSent(batch[BOGON_IP])).toEqual(expected(BOGON_IP));
    expect(batch[BOGON_IP].bogon).toBe(true);
    expect(batch[`${BOGON_IP}/bogon`]).toBe(true);
    expect(batch[`${VPN_EXIT}/privacy/service`]).toBe(VPN_EXIT_SERVICE);
    expect(batch['2001:4860::1/org']).toBe(expected('2001:4860::1').org);
    expect(batch['not-an-ip'].error.code).toBe('invalid_ip');
    // Six paths answered, one error: six lookups, exactly.
    expect(before - (await remainingBefore(key)) - 1).toBe(6);
  });

  it('getBatch chunks a long list as it would for the provider; every element counted once', async () => {
    const key = await newKey('big');
    const before = await remainingBefore(key);
    const ips = Array.from({ length: 1500 }, (_, i) => `8.8.${i >> 8}.${i & 255}`);
    const batch = await client(key).getBatch(ips);
    expect(Object.keys(batch)).toHaveLength(1500);
    for (const ip of [ips[0]!, ips[1499]!]) expect(asSent(batch[ip] as unknown as Record<string, unknown>)).toEqual(expected(ip));
    expect(before - (await remainingBefore(key)) - 1).toBe(1500);
  });

  it('a field call (the client fetchApi on {ip}/{field}) answers the field as plain text', async () => {
    const c = client(await newKey('big'));
    for (const [path, want] of [['8.8.8.8/country', expected('8.8.8.8').country], ['8.8.8.8/org', expected('8.8.8.8').org], [`${VPN_EXIT}/city`, expected(VPN_EXIT).city], [`${ANYCAST_IP}/anycast`, 'true']] as const) {
      const res = await c.fetchApi(path);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await res.text()).toBe(`${want}\n`);
    }
    await expect(c.fetchApi('8.8.8.8/hostname')).rejects.toThrow(/404/);
  });

  it('the client sees a refused quota as its limit error, and nothing is counted', async () => {
    const key = await newKey('six');
    await expect(client(key).getBatch(['1.1.1.1', '1.1.1.2', '1.1.1.3', '1.1.1.4', '1.1.1.5', '1.1.1.6', '1.1.1.7'])).rejects.toThrow(/limit/i);
    const ok = await client(key).getBatch(['1.1.1.1', '1.1.1.2', '1.1.1.3', '1.1.1.4', '1.1.1.5', '1.1.1.6']);
    expect(Object.keys(ok)).toHaveLength(6);
    await expect(client(key).lookupIp('8.8.8.8')).rejects.toThrow(/limit/i);
  });
});

describe('curl-style auth over the wire', () => {
  it('Basic with the key as user and an empty password (curl -u KEY:), Bearer and ?token=', async () => {
    const key = await newKey('big');
    const url = `${server.url}/thirdparty/8.8.8.8/json`;
    for (const init of [{ headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` } }, { headers: { authorization: `Bearer ${key}` } }]) {
      const res = await fetch(url, init);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(expected('8.8.8.8'));
    }
    expect((await fetch(`${url}?token=${key}`)).status).toBe(200);
    const bad = await fetch(url, { headers: { authorization: 'Basic %%%' } });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('content-type')).toBe('application/problem+json');
    expect(((await bad.json()) as { code: string }).code).toBe('invalid_api_key');
  });
});
