/**
 * libmaxminddb's `mmdblookup` (Debian package mmdb-bin) as a second,
 * independent MMDB reader for the tests: runs it on one address and parses
 * its printout back into a value.
 *
 * The printout is one token per line: `{`, `}`, `[`, `]`, `"key": `,
 * `"text" <utf8_string>` (a string may span lines when it holds a newline),
 * `123 <uint32>`, `1.500000 <double>` (six decimals), `true <boolean>`.
 */
import { spawnSync } from 'node:child_process';

type Value = string | number | boolean | Value[] | { [k: string]: Value };

function parse(lines: string[]): Value {
  let i = 0;
  const next = (): string => {
    while (i < lines.length && lines[i]!.trim() === '') i++;
    return lines[i++]!.trim();
  };
  const value = (): Value => {
    let line = next();
    if (line === '{') {
      const out: Record<string, Value> = {};
      for (;;) {
        const t = next();
        if (t === '}') return out;
        const key = /^"(.*)":$/.exec(t);
        if (key === null) throw new Error(`mmdblookup: expected a key, got ${JSON.stringify(t)}`);
        out[key[1]!] = value();
      }
    }
    if (line === '[') {
      const out: Value[] = [];
      for (;;) {
        const save = i;
        if (next() === ']') return out;
        i = save;
        out.push(value());
      }
    }
    if (line.startsWith('"')) {
      // A string runs until a line ending in `" <utf8_string>` (it may hold newlines).
      while (!line.endsWith('" <utf8_string>')) line += `\n${lines[i++]!}`;
      return line.slice(1, -'" <utf8_string>'.length);
    }
    const m = /^(\S+) <(\w+)>$/.exec(line);
    if (m === null) throw new Error(`mmdblookup: cannot read ${JSON.stringify(line)}`);
    if (m[2] === 'boolean') return m[1] === 'true';
    return Number(m[1]);
  };
  return value();
}

/** The record of `ip` as mmdblookup reads it, or null when it finds none. */
export function mmdblookup(file: string, ip: string): Value | null {
  const r = spawnSync('mmdblookup', ['--file', file, '--ip', ip], { encoding: 'utf8' });
  if (r.error !== undefined) throw new Error(`mmdblookup cannot run (${r.error.message}): install the Debian package mmdb-bin (.ci/run does)`);
  if (r.stderr.includes('Could not find an entry')) return null;
  if (r.status !== 0) throw new Error(`mmdblookup ${ip}: exit ${r.status}: ${r.stderr}`);
  return parse(r.stdout.split('\n'));
}

/** The metadata lines of `mmdblookup --verbose` (`Node count`, `Record size`, `Type`, ...). */
export function mmdbMetadata(file: string, ip: string): Record<string, string> {
  const r = spawnSync('mmdblookup', ['--verbose', '--file', file, '--ip', ip], { encoding: 'utf8' });
  const out: Record<string, string> = {};
  for (const m of r.stdout.matchAll(/^ {4}([A-Z][\w ]+):\s+(.*)$/gm)) out[m[1]!] = m[2]!;
  const description = /^ {6}en:\s+(.*)$/m.exec(r.stdout);
  if (description !== null) out['Description'] = description[1]!;
  return out;
}

/** A value as mmdblookup prints it: doubles with six decimals. */
export function asPrinted(v: unknown): unknown {
  if (typeof v === 'number' && !Number.isInteger(v)) return Number(v.toFixed(6));
  if (Array.isArray(v)) return v.map(asPrinted);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asPrinted(x)]));
  return v;
}
