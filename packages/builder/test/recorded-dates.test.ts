/**
 * build/recorded-dates.ts: a feeds-folder file that states no data date
 * takes the one its folder's manifest (sources.json) records for its exact
 * bytes; the file's own date comes first, a changed file or an unreadable
 * record gives none (and the build says why), and a download never takes a
 * folder's record.
 */
import fc from 'fast-check';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromFolder, type Acquire } from '../src/acquire.js';
import { loadInputs } from '../src/build/load.js';
import { recordedDates } from '../src/build/recorded-dates.js';
import { isoFromRecordedDate } from '../src/feeds/read/dates.js';
import { sha256 } from '../src/manifest.js';
import { FIXTURES, VENDORED } from './feeds/helpers.js';

const VPN_FILE = 'vpn/x4bnet-vpn-ipv4.txt'; // states no date
const AZURE_FILE = 'datacenter/azure-ServiceTags_Public.json'; // states no date
const TOR_FILE = 'tor/torbulkexitlist.txt'; // states its own: 2026-08-22T16:18:35.025Z

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ipintel-recorded-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of the fixture feeds whose sources.json records `dates` (path -> date) for the bytes there now. */
function folderRecording(dates: Record<string, unknown>): string {
  const feeds = join(dir, 'feeds');
  cpSync(FIXTURES, feeds, { recursive: true });
  const files = Object.entries(dates).map(([path, data_date]) => ({ path, data_date, sha256: sha256(readFileSync(join(feeds, path))) }));
  writeFileSync(join(feeds, 'sources.json'), JSON.stringify({ collected: '2026-08-22', note: '', files, excluded: [] }));
  return feeds;
}

const load = (feeds: string, said: string[], acquire: Acquire = fromFolder(feeds)) =>
  loadInputs({ acquire, feedsFolder: feeds, tables: FIXTURES, buildDate: null, attributionUrl: 'u', now: () => Date.parse('2026-09-01T00:00:00Z'), progress: (m) => said.push(m) });

const dateOf = (r: Awaited<ReturnType<typeof load>>, id: string) => r.reports.find((x) => x.id === id)!.source!.data_date;

describe('dates a feeds folder records', () => {
  it('date a file that states none, and age a VPN list by them', async () => {
    const said: string[] = [];
    const r = await load(folderRecording({ [AZURE_FILE]: '2025-11-06', [VPN_FILE]: '2026-01-01T06:30Z', [TOR_FILE]: '2020-01-01' }), said);
    expect(dateOf(r, 'azure')).toBe('2025-11-06');
    expect(dateOf(r, 'x4bnet-vpn-ipv4')).toBe('2026-01-01T06:30:00Z');
    // The file's own date comes first.
    expect(dateOf(r, 'tor-exits')).toBe('2026-08-22T16:18:35.025Z');
    // Dated now, the X4B list is ~233 days older than the build date and left out (roles.ts); undated, it was used.
    expect(said.some((m) => m.startsWith('leaving out x4bnet-vpn-ipv4: its data is'))).toBe(true);
    const undated: string[] = [];
    const before = await load(FIXTURES, undated);
    expect(dateOf(before, 'x4bnet-vpn-ipv4')).toBeNull();
    expect(undated.some((m) => m.startsWith('leaving out x4bnet-vpn-ipv4'))).toBe(false);
    expect(before.input.vpnBroad.length).toBeGreaterThan(r.input.vpnBroad.length);
  });

  it('give no date to a file changed since the record, and say so', async () => {
    const feeds = folderRecording({ [AZURE_FILE]: '2025-11-06' });
    appendFileSync(join(feeds, AZURE_FILE), '\n');
    const said: string[] = [];
    const r = await load(feeds, said);
    expect(dateOf(r, 'azure')).toBeNull();
    expect(said.some((m) => m.includes(AZURE_FILE) && m.includes('is not the copy sources.json describes'))).toBe(true);
  });

  it('never date a download, though the folder records its path', async () => {
    const feeds = folderRecording({ [AZURE_FILE]: '2025-11-06' });
    const folder = fromFolder(feeds);
    const downloaded: Acquire = async (feed) => {
      const got = await folder(feed);
      return got === null ? null : { ...got, url: `https://example.test/${feed.path}` };
    };
    const r = await load(feeds, [], downloaded);
    expect(dateOf(r, 'azure')).toBeNull();
  });

  it('build as before from a folder whose manifest cannot be read, saying why', async () => {
    const feeds = folderRecording({});
    const said: string[] = [];
    for (const text of ['{ not json', '{"files": 7}', 'null']) {
      writeFileSync(join(feeds, 'sources.json'), text);
      said.length = 0;
      const r = await load(feeds, said);
      expect(dateOf(r, 'azure')).toBeNull();
      if (text !== 'null') expect(said.some((m) => m.includes('sources.json') && m.includes('no data dates are taken from it'))).toBe(true);
    }
  });

  it('take no date that names no instant, and say which entry', () => {
    const feeds = folderRecording({ [AZURE_FILE]: '2026-08-21T14:45:42', [VPN_FILE]: '2026-02-30' });
    const said: string[] = [];
    const recorded = recordedDates(feeds, (m) => said.push(m));
    expect(recorded.dateOf(AZURE_FILE, readFileSync(join(feeds, AZURE_FILE)))).toBeNull();
    expect(recorded.dateOf(VPN_FILE, readFileSync(join(feeds, VPN_FILE)))).toBeNull();
    expect(said.filter((m) => m.includes('not a date'))).toHaveLength(2);
  });

  it('read every date the repository records for its vendored feeds', () => {
    const said: string[] = [];
    recordedDates(VENDORED, (m) => said.push(m));
    expect(said).toEqual([]);
  });
});

describe('isoFromRecordedDate', () => {
  const instant = fc.integer({ min: Date.parse('1000-01-01T00:00:00Z'), max: Date.parse('9999-12-31T23:59:59Z') });

  it('keeps a calendar date or an ISO UTC time, names the same instant with minutes only, and reads no zoneless time', () => {
    fc.assert(
      fc.property(instant, (t) => {
        const iso = new Date(t - (t % 1000)).toISOString().replace('.000Z', 'Z');
        expect(isoFromRecordedDate(iso)).toBe(iso);
        expect(isoFromRecordedDate(iso.slice(0, 10))).toBe(iso.slice(0, 10));
        const minutes = `${iso.slice(0, 16)}Z`;
        expect(Date.parse(isoFromRecordedDate(minutes)!)).toBe(Date.parse(`${iso.slice(0, 16)}:00Z`));
        expect(isoFromRecordedDate(iso.slice(0, 19))).toBeNull();
      }),
    );
  });

  it('gives null or a date Date.parse reads, for any input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.anything()), (x) => {
        const d = isoFromRecordedDate(x);
        if (d !== null) expect(Number.isNaN(Date.parse(d))).toBe(false);
      }),
    );
  });
});
