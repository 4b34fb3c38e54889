// Shared helpers for the benchmarks: a seeded PRNG, address generators, timing.
import { createRequire } from 'node:module';
import { cpus } from 'node:os';

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

/** Runs `fn(i)` for i in [0, n) `rounds` times after a warm-up; returns the best rate per second. */
export function rate(n, fn, rounds = 3) {
  for (let i = 0; i < Math.min(n, 200_000); i++) fn(i);
  let best = 0;
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn(i);
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    best = Math.max(best, n / s);
  }
  return best;
}

export function machine() {
  const c = cpus();
  return `${c[0]?.model ?? 'unknown CPU'}, ${c.length} cores, Node ${process.version}`;
}

export function fmt(x) {
  if (x >= 1e6) return `${(x / 1e6).toFixed(2)} M/s`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(0)} k/s`;
  return `${x.toFixed(0)}/s`;
}
