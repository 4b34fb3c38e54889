/**
 * tools/verify-build.mjs (issue #3) on the fixture snapshot: the tool runs
 * as a child process (it imports the BUILT core and builder packages, like
 * every tool; `pnpm test` builds them first), re-derives every field from
 * the fixture feeds (geo/ASN from the fixture CSVs, detected by the folder
 * layout) and must agree everywhere; a feed changed after the build must be
 * reported as a disagreement naming the address.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSnapshot } from '../src/build/build.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const tool = join(root, 'tools/verify-build.mjs');
const fixtureFeeds = join(root, 'fixtures/feeds');
const dir = mkdtempSync(join(tmpdir(), 'ipintel-verify-'));
const snapshot = join(dir, 'fixture.ipintel');

const FIELDS = [
  'geo.country_code', 'geo.region', 'geo.city', 'geo.latitude', 'geo.longitude',
  'network.asn', 'network.as_org', 'network.is_bogon', 'network.is_announced',
  'signals.is_tor', 'signals.is_vpn', 'signals.vpn_operator', 'signals.is_proxy', 'signals.is_relay', 'signals.relay_provider',
  'signals.is_verified_bot', 'signals.verified_bot_name', 'signals.is_public_resolver', 'signals.is_drop_listed',
  'signals.recent_abuse', 'signals.connection_type', 'signals.datacenter_provider', 'signals.is_anycast',
];

interface FieldReport {
  field: string;
  compared: number;
  agree: number;
  agreement: number | null;
  differences: { ip: string; expected: unknown; got: unknown; from?: string }[];
}
interface Report {
  ok: boolean;
  feeds: string | null;
  geo_source: string;
  samples: Record<'random' | 'feed', { addresses: number; fields: FieldReport[] }>;
}

function run(args: string[]): { status: number | null; report: Report | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [tool, '--snapshot', snapshot, '--v4', '3000', '--v6', '1000', '--json', ...args], { encoding: 'utf8', timeout: 60_000 });
  let report: Report | null = null;
  try {
    report = JSON.parse(r.stdout) as Report;
  } catch {
    // left null: the assertions below show stdout/stderr
  }
  return { status: r.status, report, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  for (const p of ['packages/core/dist/index.js', 'packages/builder/dist/index.js']) {
    if (!existsSync(join(root, p))) throw new Error(`${p} missing: the verify tool imports the built packages (run \`pnpm run build\`)`);
  }
  await buildSnapshot({ feeds: fixtureFeeds, out: snapshot, buildDate: '2026-08-22T00:00:00.000Z' });
});

describe('tools/verify-build.mjs on the fixture snapshot', () => {
  it('agrees on every field, exits 0 and lists every field for both sample kinds', () => {
    const { status, report, stdout, stderr } = run(['--feeds', fixtureFeeds]);
    expect(report, `${stdout}\n${stderr}`).not.toBeNull();
    const diffs = Object.values(report!.samples).flatMap((s) => s.fields.filter((f) => f.agree !== f.compared));
    expect(diffs, JSON.stringify(diffs, null, 2)).toEqual([]);
    expect(status, stderr).toBe(0);
    expect(report!.ok).toBe(true);
    expect(report!.geo_source).toContain('dbip-city-ipv');
    expect(report!.samples.random.addresses).toBe(4000);
    expect(report!.samples.feed.addresses).toBeGreaterThan(100);
    for (const kind of ['random', 'feed'] as const) {
      const fields = report!.samples[kind].fields;
      expect(fields.map((f) => f.field)).toEqual(FIELDS);
      for (const f of fields) {
        expect(f.compared, `${kind} ${f.field}`).toBeGreaterThan(0);
        expect(f.agreement).toBe(100);
      }
    }
  });

  it('repeats exactly with the same seed', () => {
    const a = run(['--feeds', fixtureFeeds, '--seed', '7']).report!;
    const b = run(['--feeds', fixtureFeeds, '--seed', '7']).report!;
    const counts = (r: Report): unknown => Object.values(r.samples).map((s) => s.fields.map((f) => [f.field, f.compared, f.agree]));
    expect(counts(a)).toEqual(counts(b));
  });

  it('reports a feed the snapshot does not reflect: exit 1, the field under 100%, the address named', () => {
    const feeds = join(dir, 'feeds-changed');
    cpSync(fixtureFeeds, feeds, { recursive: true });
    appendFileSync(join(feeds, 'tor/torbulkexitlist.txt'), '\n185.220.101.77\n');
    const { status, report, stdout, stderr } = run(['--feeds', feeds]);
    expect(report, `${stdout}\n${stderr}`).not.toBeNull();
    expect(status).toBe(1);
    expect(report!.ok).toBe(false);
    const tor = report!.samples.feed.fields.find((f) => f.field === 'signals.is_tor')!;
    expect(tor.agree).toBeLessThan(tor.compared);
    expect(tor.differences).toContainEqual(expect.objectContaining({ ip: '185.220.101.77', expected: true, got: false }));
  });

  it('without a feeds folder checks geo and ASN only, and says so', () => {
    const { status, stdout } = spawnSync(process.execPath, [tool, '--snapshot', snapshot, '--feeds', join(dir, 'no-such-folder'), '--v4', '200', '--v6', '50'], { encoding: 'utf8' });
    expect(stdout).toContain('only geo and ASN are checked');
    expect(stdout).toContain('network.as_org');
    expect(stdout).not.toContain('signals.is_tor');
    // The npm DB-IP data is not what the fixture snapshot was built from: no claim on the exit code here.
    expect([0, 1]).toContain(status);
  });
});
