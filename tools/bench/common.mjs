// Shared helpers for the benchmarks: a seeded PRNG, address generators, timing.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';

// The seeded generator lives in the shared test kit (built by `pnpm build`, which `pnpm bench` runs
// first): the same seed gives the same inputs in the tests, the benchmarks and the verify tool.
export { mulberry32, prng } from '../../packages/testkit/dist/random.js';
import { prng } from '../../packages/testkit/dist/random.js';

/** IANA special-purpose IPv4 blocks (not public): [first, size]. */
const SPECIAL_V4 = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 3],
].map(([a, len]) => {
  const n = a.split('.').reduce((x, o) => x * 256 + Number(o), 0);
  return [n, 2 ** (32 - len)];
});

export function isPublicV4(n) {
  return !SPECIAL_V4.some(([first, size]) => n >= first && n < first + size);
}

export function v4Text(n) {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/**
 * `s` (Latin-1 text: addresses are ASCII) as a flat string of its own. A text joined from parts (v4Text's, 13
 * characters or more) is a V8 cons string, and a slice of a longer one a
 * sliced string: a reader of either follows one pointer more to the
 * characters, a miss of its own when a million inputs are read in random
 * order. A parser's strings (JSON, query strings, headers) are flat, so the
 * benchmarks' inputs are made flat too.
 */
export function flatText(s) {
  return Buffer.from(s, 'latin1').toString('latin1');
}

/** `count` random public IPv4 addresses as numbers. */
export function randomPublicV4(count, seed) {
  const rnd = prng(seed);
  const out = new Uint32Array(count);
  for (let i = 0; i < count; ) {
    const n = Math.floor(rnd() * 4294967296) >>> 0;
    if (isPublicV4(n)) out[i++] = n;
  }
  return out;
}

/**
 * `count` random IPv6 addresses inside space that has data: a random range of
 * the ip-location-db IPv6 ASN table, a random address in it (uniform over
 * 2000::/3 would be almost all empty space, where every reader answers fast).
 */
export function randomRoutedV6(count, seed) {
  const require = createRequire(new URL('../../packages/builder/package.json', import.meta.url));
  const fs = require('node:fs');
  const csv = fs.readFileSync(require.resolve('@ip-location-db/asn/asn-ipv6.csv'), 'utf8');
  const ranges = [];
  for (const line of csv.split('\n')) {
    const c = line.indexOf(',');
    const d = line.indexOf(',', c + 1);
    if (c > 0 && d > c) ranges.push([parse6(line.slice(0, c)), parse6(line.slice(c + 1, d))]);
  }
  const rnd = prng(seed);
  const out = [];
  while (out.length < count) {
    const [a, b] = ranges[Math.floor(rnd() * ranges.length)];
    const span = b - a + 1n;
    const r = (BigInt(Math.floor(rnd() * 2 ** 52)) << 76n) | (BigInt(Math.floor(rnd() * 2 ** 52)) << 24n) | BigInt(Math.floor(rnd() * 2 ** 24));
    out.push(format6(a + (r % span)));
  }
  return out;
}

function parse6(s) {
  const [head, tail] = s.includes('::') ? s.split('::') : [s, null];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === null ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((x, g) => (x << 16n) | BigInt(parseInt(g || '0', 16)), 0n);
}

/** RFC 5952 text (how addresses appear in logs): groups without leading zeros, the longest zero run as `::`. */
function format6(x) {
  const g = [];
  for (let i = 7; i >= 0; i--) g.push(Number((x >> BigInt(i * 16)) & 0xffffn));
  let bestAt = -1;
  let bestLen = 1;
  for (let k = 0; k < 8; ) {
    let e = k;
    while (e < 8 && g[e] === 0) e++;
    if (e - k > bestLen) [bestAt, bestLen] = [k, e - k];
    k = e === k ? k + 1 : e;
  }
  const hex = (a) => a.map((v) => v.toString(16)).join(':');
  return bestAt < 0 ? hex(g) : `${hex(g.slice(0, bestAt))}::${hex(g.slice(bestAt + bestLen))}`;
}

/**
 * A permutation of 0..n-1 (seeded), to give the same addresses in another order.
 */
export function shuffled(n, seed) {
  const rnd = prng(seed);
  const p = new Uint32Array(n);
  for (let i = 0; i < n; i++) p[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    const x = p[i];
    p[i] = p[j];
    p[j] = x;
  }
  return p;
}

let compiled = 0;

/**
 * `new Function(...params, body)` compiled on its own: the source carries
 * `label` and a serial number, so V8's compilation cache cannot hand back a
 * function made from the same text before, whose call sites (and what V8
 * learned at them) would then be shared. For timing loops that must each
 * meet one callee only (see ownLoop).
 */
export function compiledAlone(label, params, body) {
  compiled += 1;
  return new Function(...params, `// ${String(label).replace(/[^\w ,.-]/g, '_')}, #${compiled}\n${body}`);
}

/**
 * The timing loop of one contender: `loop(f, n, o)` calls `f(i, o)` for i in
 * [0, n) and returns how many answers were truthy. Each contender gets a loop
 * compiled on its own (compiledAlone), so its call of `f`
 * only ever meets `f`: V8 inlines it, as it inlines a library call in a
 * caller's own loop. One loop shared by every contender met them all; its call
 * was megamorphic, never inlined, and cost the raw IPv4 lookup 22-30% of its
 * rate: the extra work per address also leaves the CPU fewer addresses in
 * flight whose memory reads overlap (docs/design.md, "Fourteenth round").
 */
function ownLoop(name) {
  return compiledAlone(`the timing loop of ${name}`, ['f', 'n', 'o'], 'let truthy = 0;\nfor (let i = 0; i < n; i++) if (f(i, o)) truthy++;\nreturn truthy;');
}

/**
 * Rates per second of several contenders on the same n inputs, given in
 * `orders` different orders: `fns[name](i, o)` handles input i of order o,
 * in a timing loop of its own (see ownLoop). Each contender first runs once
 * over order 0 (a warm-up that fills its caches, as a long-running process
 * would have them), then `rounds` timed rounds alternate between the
 * contenders and between orders 1..orders-1: a cache filled in one order is
 * read in another, as with real traffic, rather than in the order it was built
 * (which would turn random reads into nearly sequential ones), and a burst of
 * load from other processes hits every contender alike. The best round of
 * each counts. A round is timed in the CPU time of this process (user +
 * system), not wall time: on a machine shared with other work, wall time also
 * counts the time the thread waited for a core.
 */
export function rates(fns, n, options = {}) {
  const runs = {};
  for (const [name, f] of Object.entries(fns)) {
    const loop = ownLoop(name);
    runs[name] = (o) => loop(f, n, o);
  }
  return loopRates(runs, n, options);
}

/**
 * The same rounds as {@link rates} for contenders that are whole loops:
 * `loops[name](o)` handles all n inputs of order o itself and returns
 * something that depends on them (kept alive, so the work is not dropped).
 * For lookups cheap enough that the loop around them counts: a contender
 * written as a caller would write it (the inputs in a local, one call per
 * address) is timed as such.
 */
export function loopRates(loops, n, { rounds = 6, orders = 3, rotate = false } = {}) {
  let sink = 0;
  for (const run of Object.values(loops)) sink += Number(run(0)) || 0;
  const best = {};
  const entries = Object.entries(loops);
  for (let r = 0; r < rounds; r++) {
    const o = orders > 1 ? 1 + (r % (orders - 1)) : 0;
    // rotate: each round starts with the next contender, so none always runs right after the same one.
    const turn = rotate ? [...entries.slice(r % entries.length), ...entries.slice(0, r % entries.length)] : entries;
    for (const [name, run] of turn) {
      const c0 = process.cpuUsage();
      sink += Number(run(o)) || 0;
      const c = process.cpuUsage(c0);
      const secs = (c.user + c.system) / 1e6;
      best[name] = Math.max(best[name] ?? 0, n / Math.max(secs, 1e-6));
    }
  }
  if (sink === 0.5) console.log(''); // keeps the loops' results alive
  return best;
}

export function machine() {
  const c = cpus();
  return `${c[0]?.model ?? 'unknown CPU'}, ${c.length} cores, Node ${process.version}`;
}

/**
 * Milliseconds a fresh process takes to first touch 256 MB of new memory
 * (best of 3): mostly page faults, which load times (every reader's: ours
 * inflates ~80 MB of columns into new memory, maxmind reads its files) pay
 * too. On this virtual machine that cost changes between days (maxmind's
 * open() of the same files took 89 ms in one README run and 557 ms in the
 * next), so the report prints it beside the load times.
 */
export function firstTouchMs() {
  const code = 'const t=performance.now();new Uint8Array(256*1048576).fill(1);console.log(performance.now()-t)';
  const runs = [0, 1, 2].map(() => Number(spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' }).stdout));
  return Math.min(...runs);
}

/** The 1-minute load average, rounded (how busy the shared machine was). */
export function load() {
  return loadavg()[0].toFixed(1);
}

export function fmt(x) {
  if (x >= 1e6) return `${(x / 1e6).toFixed(2)} M/s`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(0)} k/s`;
  return `${x.toFixed(0)}/s`;
}
