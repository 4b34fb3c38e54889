/**
 * The web page in a real browser: headless Chromium (Debian package
 * `chromium`, installed by .ci/run) loads the page from a server on
 * 127.0.0.1 over the fixture snapshot, types addresses and a key (or uses
 * the demo quota and "My address"), and the test reads the rendered results
 * back: the text against check() on the same snapshot, the map's marker at
 * the projected place, no script errors or CSP violations. Screenshots go to
 * packages/server/test-output/ (gitignored).
 *
 * Chromium is required, not optional: without it this test fails, it does
 * not skip.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultSnapshotPath, open, openSync, type CheckResult, type IpIntel } from '@ipintel/core';
import { steadyClock } from '@ipintel/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/keys/manage.js';
import { project } from '../src/page/world-map.js';
import { resolvePlans } from '../src/plans.js';
import { startServer, type RunningServer } from '../src/standalone.js';
import { findChromium, launchChromium, type Browser, type BrowserPage } from './support/chromium.js';
import { fixtureBytes } from './support/fixtures.js';
import { TEST_PLANS, tempDir } from './support/harness.js';

const OUTPUT = fileURLToPath(new URL('../test-output/', import.meta.url));

/** What the page rendered for one result. */
interface Rendered {
  summary: string;
  fields: Record<string, string>;
  evidence: Record<string, string>;
  thirdparty: unknown;
  native: unknown;
}

const readResult = (page: BrowserPage, ip: string): Promise<Rendered | null> =>
  page.evaluate<Rendered | null>(`(() => {
    const a = document.querySelector('article.result[data-ip="${ip}"]');
    if (a === null) return null;
    const table = (sel) => Object.fromEntries([...a.querySelectorAll(sel + ' tr')].map((tr) => [tr.cells[0].textContent, tr.cells[1].textContent]));
    return {
      summary: a.querySelector('.summary').textContent,
      fields: table('.fields'),
      evidence: table('.evidence'),
      native: JSON.parse(a.querySelector('.native').textContent),
      thirdparty: JSON.parse(a.querySelector('.thirdparty').textContent),
    };
  })()`);

const markers = (page: BrowserPage): Promise<{ ip: string; cx: number; cy: number }[]> =>
  page.evaluate(`[...document.querySelectorAll('#markers circle.marker')].map((c) => ({ ip: c.dataset.ip, cx: Number(c.getAttribute('cx')), cy: Number(c.getAttribute('cy')) }))`);

/** Opens the page and waits until its script has set it up. */
async function openPage(browser: Browser, url: string): Promise<BrowserPage> {
  const page = await browser.open(`${url}/`);
  await page.waitFor(`document.body.dataset.ready === '1'`);
  return page;
}

/** Types the addresses (and the key, when given) and presses "Look up", as a user would. */
const lookUp = (page: BrowserPage, ips: string, key?: string): Promise<unknown> =>
  page.evaluate(`(() => {
    document.getElementById('ips').value = ${JSON.stringify(ips)};
    ${key === undefined ? '' : `document.getElementById('key').value = ${JSON.stringify(key)};`}
    document.getElementById('look-up').click();
  })()`);

/** The summary line the page writes for a native result, from check() on the same snapshot. */
function expectSummary(text: string, r: CheckResult): void {
  if (r.geo.country !== null) expect(text).toContain(`${r.geo.country} (${r.geo.country_code})`);
  expect(text).toContain(r.network.asn === 0 ? 'no ASN' : `AS${r.network.asn} ${r.network.as_org}`);
  expect(text).toContain(`risk ${r.risk.score} (${r.risk.level})`);
}

describe('the web page in headless Chromium', () => {
  let browser: Browser;
  let intel: IpIntel;
  const servers: RunningServer[] = [];
  const dirs: (() => void)[] = [];
  // The servers' clock, and the one check() is compared at: demo quotas count per UTC day and results carry
  // allocation_age_days, so on the real clock a run across midnight would compare two days.
  const clock = steadyClock();

  const serve = async (extra: { demoQuota?: number; snapshot?: string } = {}): Promise<RunningServer> => {
    const t = tempDir('ipintel-page-');
    dirs.push(t.cleanup);
    const s = await startServer({ port: 0, snapshot: extra.snapshot ?? fixtureBytes('a'), store: `sqlite:${join(t.dir, 'store.sqlite')}`, plans: TEST_PLANS, activationDelayMs: 0, logger: false, sighup: false, now: clock, ...extra });
    servers.push(s);
    return s;
  };

  beforeAll(async () => {
    const binary = findChromium();
    if (binary === undefined) throw new Error('chromium is not installed: apt-get install chromium (.ci/run does)');
    browser = await launchChromium(binary);
    intel = await open(fixtureBytes('a'), { now: clock });
    mkdirSync(OUTPUT, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    for (const s of servers) await s.close();
    for (const c of dirs) c();
  });

  it('looks addresses up with a typed key: result text, both shapes, evidence, map marker', async () => {
    const server = await serve();
    const { key } = await createKey(server.store, { plan: 'test', plans: resolvePlans(TEST_PLANS), now: clock() - 1 });
    const page = await openPage(browser, server.url);
    expect(await page.evaluate<number>(`document.querySelector('#land path').getAttribute('d').length`)).toBeGreaterThan(10_000);

    await lookUp(page, '8.8.8.8\n\n10.0.0.1\n8.8.8.8\nnot-an-ip', key);
    await page.waitFor(`document.querySelectorAll('article.result').length === 3`);

    const google = intel.check('8.8.8.8');
    const shown = (await readResult(page, '8.8.8.8'))!;
    expectSummary(shown.summary, google);
    expect(shown.fields['Connection type']).toBe(google.signals.connection_type);
    expect(shown.fields['Risk']).toContain(`${google.risk.score} (${google.risk.level})`);
    expect(shown.evidence).toEqual(google.evidence);
    expect(shown.native).toMatchObject({ ip: '8.8.8.8', geo: google.geo, network: google.network, signals: google.signals, risk: google.risk });
    expect(shown.thirdparty).toEqual(intel.check('8.8.8.8', { format: 'thirdparty' }));

    const bogon = (await readResult(page, '10.0.0.1'))!;
    expectSummary(bogon.summary, intel.check('10.0.0.1'));
    expect(bogon.fields['Announced, bogon']).toBe('no, yes');
    const bad = (await readResult(page, 'not-an-ip'))!;
    expect(bad.summary).toMatch(/^invalid_ip: /);

    // One marker: 8.8.8.8 has coordinates, the bogon and the error have none.
    const [x, y] = project(google.geo.longitude!, google.geo.latitude!);
    expect(await markers(page)).toEqual([{ ip: '8.8.8.8', cx: x, cy: y }]);

    // The key stays in this tab's sessionStorage and out of the URL.
    expect(await page.evaluate<string>(`sessionStorage.getItem('ipintel.key')`)).toBe(key);
    expect(await page.evaluate<string>('location.href')).toBe(`${server.url}/`);
    expect(await page.evaluate<string>(`document.getElementById('status').textContent`)).toMatch(/^3 results .* \d+ lookups left/);
    writeFileSync(join(OUTPUT, 'page.png'), await page.screenshot());
    expect(page.problems).toEqual([]);
  });

  it('shows the explanation under the result when the snapshot has its explain sidecar', async () => {
    // The default snapshot (packages/data, built by the test command) carries world.ipintel.explain.
    const server = await serve({ snapshot: defaultSnapshotPath() });
    const { key } = await createKey(server.store, { plan: 'test', plans: resolvePlans(TEST_PLANS), now: clock() - 1 });
    const page = await openPage(browser, server.url);
    await lookUp(page, '185.220.101.1', key);
    await page.waitFor(`document.querySelectorAll('article.result').length === 1`);
    const rows = await page.evaluate<string[][]>(`[...document.querySelectorAll('article.result .explanation tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent))`);
    const expected = openSync(defaultSnapshotPath()).check('185.220.101.1', { explain: true }).explanation!;
    // One row per field and per source its rule read (one for a field no source holds).
    expect(rows.length).toBe(expected.fields.reduce((n, f) => n + Math.max(1, f.sources.length), 0));
    const tor = expected.fields.find((f) => f.field === 'signals.is_tor')!;
    expect(rows).toContainEqual(['signals.is_tor', 'true', tor.sources[0]!.source, tor.sources[0]!.matched, tor.sources[0]!.data_date ?? '—', tor.rule]);
    writeFileSync(join(OUTPUT, 'page-explain.png'), await page.screenshot());
    expect(page.problems).toEqual([]);
  });

  it('without a key: a clear message, or the demo quota and "My address"', async () => {
    const keyed = await serve();
    const refused = await openPage(browser, keyed.url);
    await lookUp(refused, '8.8.8.8');
    await refused.waitFor(`document.getElementById('status').classList.contains('error')`);
    expect(await refused.evaluate<string>(`document.getElementById('status').textContent`)).toContain('needs an API key');

    const demo = await serve({ demoQuota: 4 });
    const page = await openPage(browser, demo.url);
    expect(await page.evaluate<string>(`document.getElementById('key-note').textContent`)).toContain('4 lookups per address per day');
    await page.evaluate(`document.getElementById('my-address').click()`);
    await page.waitFor(`document.querySelectorAll('article.result').length === 1`);
    // The server sees this browser as 127.0.0.1 (loopback: a bogon, no place, no marker).
    const me = (await readResult(page, '127.0.0.1'))!;
    expectSummary(me.summary, intel.check('127.0.0.1'));
    expect(await markers(page)).toEqual([]);
    // One address in both shapes: 2 of the 4 demo lookups.
    expect(await page.evaluate<string>(`document.getElementById('status').textContent`)).toContain('2 lookups left');
    // The next two lookups use the rest; the one after is refused with the server's reason.
    await page.evaluate(`document.getElementById('look-up').click()`);
    await page.waitFor(`document.getElementById('status').textContent.includes('0 lookups left')`);
    await page.evaluate(`document.getElementById('look-up').click()`);
    await page.waitFor(`document.getElementById('status').classList.contains('error')`);
    expect(await page.evaluate<string>(`document.getElementById('status').textContent`)).toMatch(/^quota_exceeded: /);
    writeFileSync(join(OUTPUT, 'page-demo.png'), await page.screenshot());
    // The 429 of a refused lookup is a console error in Chromium ("Failed to load resource"); nothing else is.
    expect(page.problems.filter((p) => !p.includes('429'))).toEqual([]);
    expect(refused.problems).toEqual([]);
  });
});
