// What the experiments that time builds of @ipintel/core in fresh processes
// share (loads-side-by-side.mjs, lookups-side-by-side.mjs): their command
// line, the rounds of child processes (one build per process, the builds'
// order reversed every other round, so that neither always runs first), and
// how a figure's spread is printed. Each script is its own child: it runs
// the child's part when the environment variable it names is set.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/**
 * The command line: builds (positionals), `--rounds` (default `rounds`),
 * `--snapshot` (default the bench's .cache/world.ipintel) and the script's
 * own `options`. Prints `usage` and exits 2 without a build; throws when
 * the snapshot is missing.
 */
export function sideBySideArgs(usage, rounds, options = {}) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      rounds: { type: 'string', default: String(rounds) },
      snapshot: { type: 'string', default: fileURLToPath(new URL('../../../.cache/world.ipintel', import.meta.url)) },
      ...options,
    },
  });
  if (positionals.length < 1) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  if (!existsSync(values.snapshot)) throw new Error(`no snapshot at ${values.snapshot}: run pnpm world, or pass --snapshot`);
  return { values, positionals, rounds: Number(values.rounds) };
}

/**
 * `rounds` rounds of `script` (a module URL) run once per build, the
 * builds in alternating order; each child gets `payload(build)` as JSON in
 * the environment variable `envName` and prints one JSON object, pushed on
 * `build.runs`.
 */
export function runAlternating(script, envName, builds, rounds, payload) {
  for (let round = 0; round < rounds; round++) {
    for (const b of round % 2 === 0 ? builds : [...builds].reverse()) {
      const env = { ...process.env, [envName]: JSON.stringify(payload(b)) };
      b.runs.push(JSON.parse(execFileSync(process.execPath, [fileURLToPath(script)], { env, encoding: 'utf8' })));
    }
  }
}

/** `min-max (median m)` of figures, with `digits` decimals. */
export function spread(xs, digits) {
  const s = [...xs].sort((a, b) => a - b);
  return `${s[0].toFixed(digits)}-${s[s.length - 1].toFixed(digits)} (median ${s[s.length >> 1].toFixed(digits)})`;
}
