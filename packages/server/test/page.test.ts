/**
 * The web page's routes (routes/page.ts), its map (page/world-map.ts) and the
 * demo quota (demo.ts), through the socket-less core. The page in a real
 * browser: page-browser.test.ts.
 */
import { isIP } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoBucket } from '../src/demo.js';
import { unmappedPeer } from '../src/http/client-address.js';
import { PAGE_CSP } from '../src/routes/page.js';
import { MAP_HEIGHT, MAP_WIDTH, project, topologyPath, worldMapJson } from '../src/page/world-map.js';
import { call, expectProblem, harness, type Harness } from './support/harness.js';

describe('the web page routes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(() => h.close());

  it('serves the page, its script and style without a key, each with the CSP', async () => {
    const cases: [string, RegExp][] = [
      ['/', /^text\/html/],
      ['/page/page.js', /^text\/javascript/],
      ['/page/page.css', /^text\/css/],
      ['/page/icon.svg', /^image\/svg\+xml/],
      ['/page/world.json', /^application\/json/],
      ['/page/client.json', /^application\/json/],
    ];
    for (const [url, type] of cases) {
      const res = await call(h.app, url);
      expect(res.status, url).toBe(200);
      expect(res.headers['content-type'], url).toMatch(type);
      expect(res.headers['content-security-policy'], url).toBe(PAGE_CSP);
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
    }
    expect(PAGE_CSP).toContain("script-src 'self'");
    expect(PAGE_CSP).not.toContain('unsafe-inline');
  });

  it('has no inline script or style, no external URL, and the script writes no HTML', async () => {
    const html = (await call(h.app, '/')).body;
    expect(html).toContain('<script type="module" src="page/page.js"></script>');
    // Every <script> has a src and no body; no style attribute or element.
    expect(html.match(/<script\b[^>]*>[^<]/g)).toBeNull();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/\sstyle=|<style/);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    const js = (await call(h.app, '/page/page.js')).body;
    expect(js).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
    for (const text of [html, js, (await call(h.app, '/page/page.css')).body]) {
      // Only the SVG namespace (an identifier, never fetched) may be absolute.
      expect(text.replaceAll('http://www.w3.org/2000/svg', '')).not.toMatch(/https?:\/\//);
    }
    // The key is sent as a header, never in a URL.
    expect(js).toContain("headers['x-api-key'] = key");
    expect(js).not.toMatch(/[?&](key|token|api_key)=/);
  });

  it('HEAD answers the headers without a body; other methods get 405', async () => {
    const head = await call(h.app, '/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expectProblem(await call(h.app, '/', { method: 'POST', body: 'x' }), 405, 'method_not_allowed');
  });

  it('client.json names the caller as the server sees it, and no demo quota by default', async () => {
    const res = await call(h.app, '/page/client.json', { remoteAddress: '203.0.113.9' });
    // The fixture snapshot has no explain sidecar: the page does not ask for explanations.
    expect(res.json).toEqual({ ip: '203.0.113.9', demo_quota: null, max_batch: 100, explain: false });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('client.json follows trustProxy', async () => {
    const p = await harness({ trustProxy: ['loopback'] });
    try {
      const res = await call(p.app, '/page/client.json', { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.4' } });
      expect(res.json.ip).toBe('198.51.100.4');
    } finally {
      await p.close();
    }
  });

  it('is off with page: false (404, the API still answers)', async () => {
    const off = await harness({ page: false });
    try {
      expectProblem(await call(off.app, '/'), 404, 'not_found');
      expectProblem(await call(off.app, '/page/page.js'), 404, 'not_found');
      expect((await call(off.app, '/healthz')).status).toBe(200);
    } finally {
      await off.close();
    }
  });
});

describe('the world map', () => {
  it('projects every longitude and latitude into the view box, keeping order', () => {
    fc.assert(
      fc.property(fc.double({ min: -180, max: 180, noNaN: true }), fc.double({ min: -90, max: 90, noNaN: true }), (lon, lat) => {
        const [x, y] = project(lon, lat);
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x).toBeLessThanOrEqual(MAP_WIDTH);
        expect(y).toBeGreaterThanOrEqual(0);
        expect(y).toBeLessThanOrEqual(MAP_HEIGHT);
        // East is right, north is up.
        expect(project(lon + 1e-3, lat)[0]).toBeGreaterThan(x);
        expect(project(lon, lat + 1e-3)[1]).toBeLessThan(y);
      }),
    );
  });

  it('decodes TopoJSON arcs: deltas, the transform, reversed arcs and shared joints', () => {
    // Two arcs: (0,0)->(10,0)->(10,10) and (10,10)->(0,0); a triangle in degrees (scale 1, no shift).
    const topo = {
      transform: { scale: [1, 1] as [number, number], translate: [0, 0] as [number, number] },
      arcs: [
        [[0, 0], [10, 0], [0, 10]] as [number, number][],
        [[10, 10], [-10, -10]] as [number, number][],
      ],
      objects: { o: { geometries: [{ type: 'Polygon', arcs: [[0, 1]] }, { type: 'MultiPolygon', arcs: [[[~1, ~0]]] }] } },
    };
    const d = topologyPath(topo, 'o');
    // (lon, lat) -> (lon + 180, 90 - lat); the joint (10,10) appears once per ring.
    expect(d).toBe('M180 90L190 90L190 80L180 90ZM180 90L190 80L190 90L180 90Z');
    expect(() => topologyPath(topo, 'missing')).toThrow(/no object/);
  });

  it('the bundled map covers the world: its points span the view box', () => {
    const map = JSON.parse(worldMapJson()) as { width: number; height: number; d: string };
    expect([map.width, map.height]).toEqual([MAP_WIDTH, MAP_HEIGHT]);
    const nums = [...map.d.matchAll(/[ML](-?[\d.]+) (-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])] as const);
    expect(nums.length).toBeGreaterThan(5000);
    const xs = nums.map(([x]) => x);
    const ys = nums.map(([, y]) => y);
    expect(Math.min(...xs)).toBeLessThan(1);
    expect(Math.max(...xs)).toBeGreaterThan(359);
    // Antarctica reaches the bottom; the Arctic islands are above 10 (80 degrees north).
    expect(Math.max(...ys)).toBeGreaterThan(175);
    expect(Math.min(...ys)).toBeLessThan(10);
    expect(Math.min(...ys)).toBeGreaterThanOrEqual(0);
  });
});

describe('the demo quota', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ demoQuota: 3 });
  });
  afterAll(() => h.close());

  it('serves keyless lookups per address up to the quota, then 429, and says so in client.json', async () => {
    expect((await call(h.app, '/page/client.json', { remoteAddress: '192.0.2.1' })).json.demo_quota).toBe(3);
    const a = { remoteAddress: '192.0.2.1' };
    const first = await call(h.app, '/v1/check?ip=8.8.8.8', a);
    expect(first.status).toBe(200);
    expect(first.json.geo.country_code).toBe('US');
    expect(first.headers['ratelimit-limit']).toBe('3');
    expect(first.headers['ratelimit-remaining']).toBe('2');
    expect((await call(h.app, '/v1/check/batch', { ...a, body: { ips: ['8.8.8.8', '10.0.0.1'] } })).status).toBe(200);
    expectProblem(await call(h.app, '/v1/check?ip=8.8.8.8', a), 429, 'quota_exceeded');
    // Another address has its own quota.
    expect((await call(h.app, '/v1/check?ip=8.8.8.8', { remoteAddress: '192.0.2.2' })).status).toBe(200);
  });

  it('counts an IPv6 client per /64', async () => {
    const one = { remoteAddress: '2001:db8:1:2::1' };
    const other = { remoteAddress: '2001:db8:1:2:ffff::9' };
    expect((await call(h.app, '/v1/check/batch', { ...one, body: { ips: ['8.8.8.8', '8.8.4.4'] } })).status).toBe(200);
    expect((await call(h.app, '/v1/check?ip=8.8.8.8', other)).headers['ratelimit-remaining']).toBe('0');
    expectProblem(await call(h.app, '/v1/check?ip=8.8.8.8', other), 429, 'quota_exceeded');
  });

  it('counts IPv4 clients of a server listening on :: (mapped peers) per IPv4 address, not in one shared /64', async () => {
    // node:http on `::` reports an IPv4 client as ::ffff:a.b.c.d; all of those share the /64 of `::`.
    const a = { remoteAddress: '::ffff:198.51.100.7' };
    expect((await call(h.app, '/page/client.json', a)).json.ip).toBe('198.51.100.7');
    expect((await call(h.app, '/v1/check/batch', { ...a, body: { ips: ['8.8.8.8', '8.8.4.4', '1.1.1.1'] } })).status).toBe(200);
    expectProblem(await call(h.app, '/v1/check?ip=8.8.8.8', a), 429, 'quota_exceeded');
    // The same client seen unmapped has used its quota too; another IPv4 client has not.
    expectProblem(await call(h.app, '/v1/check?ip=8.8.8.8', { remoteAddress: '198.51.100.7' }), 429, 'quota_exceeded');
    expect((await call(h.app, '/v1/check?ip=8.8.8.8', { remoteAddress: '::ffff:198.51.100.8' })).status).toBe(200);
  });

  it('unmappedPeer undoes IPv4 mapping and leaves every other peer as given', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.constantFrom('::ffff:', '::FFFF:'), (v4, prefix) => {
        expect(unmappedPeer(prefix + v4)).toBe(v4);
      }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.ipV6(), fc.ipV4(), fc.string()), (peer) => {
        if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(peer) && isIP(peer.slice(7)) === 4) return;
        expect(unmappedPeer(peer)).toBe(peer);
      }),
    );
    expect(unmappedPeer(undefined)).toBeUndefined();
    expect(unmappedPeer('::ffff:1.2.3')).toBe('::ffff:1.2.3');
    expect(unmappedPeer('::ffff:102:304')).toBe('::ffff:102:304');
  });

  it('a presented key is judged by itself: a bad key is refused, a good one counts on its account', async () => {
    const a = { remoteAddress: '192.0.2.50' };
    expectProblem(await call(h.app, '/v1/check?ip=8.8.8.8', { ...a, key: 'ipi_live_' + 'x'.repeat(32) }), 401, 'invalid_api_key');
    const key = await h.key('test');
    const res = await call(h.app, '/v1/check?ip=8.8.8.8', { ...a, key });
    expect(res.headers['ratelimit-limit']).toBe('50');
  });

  it('without a demo quota a keyless lookup is still missing_api_key', async () => {
    const plain = await harness();
    try {
      expectProblem(await call(plain.app, '/v1/check?ip=8.8.8.8', { remoteAddress: '192.0.2.1' }), 401, 'missing_api_key');
    } finally {
      await plain.close();
    }
  });

  it('refuses a bad demoQuota', async () => {
    await expect(harness({ demoQuota: -1 })).rejects.toThrow(/demoQuota/);
    await expect(harness({ demoQuota: 1.5 })).rejects.toThrow(/demoQuota/);
  });

  it('demoBucket: an IPv6 address and any other in its /64 share a bucket; IPv4 is its own', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 4, maxLength: 4 }), (ip, low) => {
        if (ip.includes('.')) return; // an embedded IPv4 tail: covered by the fixed cases below
        const b = demoBucket(ip);
        const head = b.replace('::/64', '');
        const sibling = `${head}:${low.map((g) => g.toString(16)).join(':')}`;
        expect(isIP(sibling)).toBe(6);
        expect(demoBucket(sibling)).toBe(b);
      }),
    );
    expect(demoBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(demoBucket('::1')).toBe('0:0:0:0::/64');
    expect(demoBucket('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(demoBucket('192.0.2.1')).toBe('192.0.2.1');
  });
});
