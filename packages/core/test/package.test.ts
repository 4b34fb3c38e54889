/**
 * The built package works as published: ESM and CJS entries load and answer,
 * the portable entry imports no Node built-in, and every export in the
 * exports map has its types. Runs on dist/ (the test command builds first).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${pkgDir}/package.json`, 'utf8')) as {
  exports: Record<string, { import?: { types: string; default: string }; require?: { types: string; default: string } } | string>;
};

describe('built @ipintel/core', () => {
  it('is built (the test command builds first; a missing dist fails here, it never skips)', () => {
    expect(existsSync(`${pkgDir}/dist/index.js`), 'packages/core/dist missing: run `pnpm run build`').toBe(true);
  });

  it('has every file its exports map names', () => {
    for (const [entry, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'string') continue;
      for (const cond of [target.import, target.require]) {
        expect(existsSync(`${pkgDir}/${cond!.types}`), `${entry} types`).toBe(true);
        expect(existsSync(`${pkgDir}/${cond!.default}`), `${entry} code`).toBe(true);
      }
    }
  });

  const script = (load: string) => `${load}
const { loadSnapshot, IpIntelError } = core;
const { encodeSnapshot, flattenPrefixes } = writer;
const model = { build_date: '2026-01-01T00:00:00.000Z', attribution_url: 'u', has_rpki: false, sources: [], geo: [{ country: null, country_code: null, region: null, city: 'C', latitude: null, longitude: null, timezone: null }],
  networks: [{ asn: 1, as_org: 'o', is_announced: true, is_bogon: false, rpki: 'unknown', allocation_date: null, registration_country: null }],
  signals: [{ connection_type: 'isp', connection_evidence: 'inferred', datacenter_provider: null, relay_provider: null, is_relay: false, is_tor: false, is_vpn: false, is_proxy: false, is_public_resolver: false, is_drop_listed: false, recent_abuse: false, is_verified_bot: false, verified_bot_name: null, vpn_operator: null, is_anycast: false }],
  leaves: [{ geo: 0, net: 0, sig: 0 }], v4: flattenPrefixes(4, [], 0), v6: flattenPrefixes(6, [], 0) };
const intel = loadSnapshot(encodeSnapshot(model));
let code = ''; try { intel.check('1.2.3'); } catch (e) { code = e instanceof IpIntelError ? e.code : 'other'; }
const out = new Uint32Array(1);
internal.lookupMany(intel, Uint32Array.of(0x08080808), out);
process.stdout.write(JSON.stringify([intel.check('8.8.8.8').geo.city, code, internal.leafOfIPv4(intel, 0x08080808), out[0]]));`;

  it('loads and answers from the ESM entries', () => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script(`import * as core from '@ipintel/core'; import * as writer from '@ipintel/core/writer'; import * as internal from '@ipintel/core/internal';`)], { cwd: pkgDir, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual(['C', 'invalid_ip', 0, 0]);
  });

  // The internal entry's raw lookups read the IpIntel the main entry made (in the CJS build each entry has
  // its own copy of the modules: the internals' key is Symbol.for, and the IPv4 index a field by name).
  it('loads and answers from the CJS entries', () => {
    const out = execFileSync(process.execPath, ['-e', script(`const core = require('@ipintel/core'); const writer = require('@ipintel/core/writer'); const internal = require('@ipintel/core/internal');`)], { cwd: pkgDir, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual(['C', 'invalid_ip', 0, 0]);
  });

  // One program can hold several copies of IpIntelError: the CJS and ESM builds, and each CJS entry bundled on its own.
  it('an error of any copy of the package is instanceof every copy\'s IpIntelError, and nothing else is', () => {
    const script = `
const cjs = require('@ipintel/core'); const cjsPortable = require('@ipintel/core/portable');
import('@ipintel/core').then((esm) => {
  const classes = [cjs.IpIntelError, cjsPortable.IpIntelError, esm.IpIntelError];
  const thrown = [cjs, esm].map((m) => { try { m.parseAddress('1.2.3'); } catch (e) { return e; } });
  const made = classes.map((C) => new C('invalid_ip', 'x'));
  const others = [new Error('x'), { code: 'invalid_ip', message: 'x', name: 'IpIntelError' }, Object.create(Error.prototype), null, 'invalid_ip'];
  process.stdout.write(JSON.stringify({
    distinct: new Set(classes).size,
    copies: [...thrown, ...made].map((e) => classes.map((C) => e instanceof C)),
    others: others.map((o) => classes.some((C) => o instanceof C)),
    codes: thrown.map((e) => e.code),
  }));
});`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: pkgDir, encoding: 'utf8' })) as { distinct: number; copies: boolean[][]; others: boolean[]; codes: string[] };
    expect(out.distinct).toBe(3); // three copies of the class, or this test proves nothing
    expect(out.copies).toEqual(Array.from({ length: 5 }, () => [true, true, true]));
    expect(out.others).toEqual([false, false, false, false, false]);
    expect(out.codes).toEqual(['invalid_ip', 'invalid_ip']);
  });

  /** The text of every file of dist/ that `entry` loads (its relative imports, followed). */
  const graph = (entry: string): Map<string, string> => {
    const files = new Map<string, string>();
    const visit = (file: string): void => {
      if (files.has(file)) return;
      const text = readFileSync(`${pkgDir}/dist/${file}`, 'utf8');
      files.set(file, text);
      for (const m of text.matchAll(/from ['"]\.\/([^'"]+)['"]/g)) visit(m[1]!);
    };
    visit(entry);
    return files;
  };

  it('keeps the portable entry free of Node built-ins', () => {
    const files = graph('portable.js');
    for (const [file, text] of files) expect(text, file).not.toMatch(/from ['"]node:|require\(['"]node:|from ['"](fs|path|zlib|url)['"]/);
    expect(files.size).toBeGreaterThan(1);
  });

  it('keeps fflate out of the Node entry (it inflates with native zlib; evaluating fflate cost ~12 ms of every import)', () => {
    const files = graph('index.js');
    for (const [file, text] of files) expect(text, file).not.toMatch(/from ['"]fflate['"]/);
    expect(readFileSync(`${pkgDir}/dist/index.cjs`, 'utf8')).not.toMatch(/require\(['"]fflate['"]\)/);
    // The portable entry does use it: the check above would pass on a bundle that named fflate some other way.
    expect([...graph('portable.js').values()].some((text) => /from ['"]fflate['"]/.test(text))).toBe(true);
  });
  // Before: the ES build took a global `__filename` for its own file, and `node -e` / `node -p` define one ('[eval]'),
  // so from a folder outside the project the installed data package was not found (snapshot_not_found).
  it('finds the data package from its own folder in the ES and CommonJS builds, whatever globals the program defines', () => {
    const env = { ...process.env };
    delete env['IPINTEL_SNAPSHOT'];
    delete env['NODE_PATH']; // the test runner's, which reaches the workspace's hoisted packages from anywhere
    const run = (code: string): string => execFileSync(process.execPath, ['-e', code], { cwd: tmpdir(), env, encoding: 'utf8' }).trim();
    const esm = run(`import(${JSON.stringify(pathToFileURL(`${pkgDir}/dist/index.js`).href)}).then((m) => console.log(m.defaultSnapshotPath()))`);
    const cjs = run(`console.log(require(${JSON.stringify(`${pkgDir}/dist/index.cjs`)}).defaultSnapshotPath())`);
    // A DOM test environment's global `document` turns the CommonJS build's import.meta.url into an http URL.
    const cjsDom = run(`globalThis.document = { baseURI: 'http://localhost/' }; console.log(require(${JSON.stringify(`${pkgDir}/dist/index.cjs`)}).defaultSnapshotPath())`);
    const data = createRequire(`${pkgDir}/package.json`).resolve('@ipintel/data/package.json');
    expect(esm).toBe(join(dirname(data), 'world.ipintel'));
    expect(cjs).toBe(esm);
    expect(cjsDom).toBe(esm);
  });
});
