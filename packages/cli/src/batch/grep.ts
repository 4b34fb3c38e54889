/**
 * `batch --grep`: the IP addresses written anywhere in a line of text (a web
 * server's access log, sshd's auth log, a firewall log), each becoming one
 * row, in the order they appear. Lines without an address give no row.
 *
 * Rules (docs/cli.md), for text a person or a program wrote:
 * - A candidate is a run of hex digits, `:` and `.`; everything else
 *   separates (spaces, brackets, quotes, `=`, `,`, `%zone`, `/`).
 * - Accepted when core's parser accepts it (so `check` would), as it is or
 *   after dropping what punctuation around it means in prose: trailing dots
 *   (`from 1.2.3.4.`), one trailing colon (`2001:db8::1: closed`), one
 *   leading colon (`ip:1.2.3.4`, `ip:::1`).
 * - IPv4 with a port (`1.2.3.4:8080`), or glued to hex letters
 *   (`id=ab1.2.3.4` is still found), by the dotted quad inside the run that
 *   no digit or `digit.` touches (so `1.2.3.4.5` is a version, not an address).
 * - IPv6 with a port must be bracketed (`[2001:db8::1]:443`): unbracketed,
 *   `2001:db8::1:443` is itself an address and is taken as one.
 * - A dotted quad right after `word/` is a product version, not an address
 *   (`Chrome/120.0.0.0` in a User-Agent); after `//` (a URL) it is one.
 * - A run longer than MAX_LINE_BYTES (64 KiB: a hex dump without spaces, not
 *   text a person wrote) holds no address: the batch reads longer lines in
 *   pieces (lines.ts) and cannot hold such a run to its end, so it drops it;
 *   a line read whole drops it too, and a line gives the same rows however
 *   it is read.
 *
 * @module
 */
import { parseAddress } from '@ipintel/core';
import { MAX_LINE_BYTES } from './blocks.js';
import type { LineMap } from './lines.js';

const CANDIDATE = /[0-9A-Fa-f:.]+/g;
const DOTTED_QUAD = /(?<![0-9]|[0-9]\.)(?:[0-9]{1,3}\.){3}[0-9]{1,3}(?![0-9]|\.[0-9])/g;

function isAddress(text: string): boolean {
  if (text.length < 2 || text.length > 45) return false;
  try {
    parseAddress(text);
    return true;
  } catch {
    return false;
  }
}

/** True when the run starting at `at` follows `word/` (a product token such as `Chrome/`). */
function afterProductSlash(line: string, at: number): boolean {
  if (at < 2 || line[at - 1] !== '/') return false;
  return /[A-Za-z0-9_-]/.test(line[at - 2]!);
}

/** The addresses in one run of address characters, in order. */
function addressesIn(run: string, line: string, at: number): string[] {
  // 1. The run, less punctuation that belongs to the prose around it: trailing dots, then one
  //    leading and/or one trailing colon (`ip:1.2.3.4`, `ip:::1`, `2001:db8::1: closed`).
  const t = run.replace(/\.+$/, '');
  // A colon-free run right after `word/` starts with a product version: not an address as a
  // whole, but a later dotted quad in it is one (step 2, which skips only the quad at its start).
  if (t.includes(':') || !afterProductSlash(line, at)) {
    const lead = t.startsWith(':') ? 1 : 0;
    const trail = t.endsWith(':') ? 1 : 0;
    for (const [s, e] of [[0, 0], [lead, 0], [0, trail], [lead, trail]] as const) {
      const c = t.slice(s, t.length - e);
      if (isAddress(c)) return [c];
    }
  }
  // 2. Dotted quads inside the run (IPv4 with a port, glued to hex letters).
  const out: string[] = [];
  for (const m of t.matchAll(DOTTED_QUAD)) if (!afterProductSlash(line, at + m.index) && isAddress(m[0])) out.push(m[0]);
  return out;
}

/**
 * Every address written in `line`, in order. `longestRun`: runs longer than
 * this hold none (the module comment; MAX_LINE_BYTES, smaller in tests).
 *
 * @example
 * extractAddresses('Failed password for root from 203.0.113.9 port 22 ssh2') // => ['203.0.113.9']
 * extractAddresses('[2001:db8::7]:443 -> 10.0.0.1:8080') // => ['2001:db8::7', '10.0.0.1']
 */
export function extractAddresses(line: string, longestRun = MAX_LINE_BYTES): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(CANDIDATE)) {
    // A run needs a separator of its kind to be an address at all.
    if (!m[0].includes('.') && !m[0].includes(':')) continue;
    if (m[0].length > longestRun) continue;
    out.push(...addressesIn(m[0], line, m.index));
  }
  return out;
}

/**
 * The LineMap of --grep: each line becomes the addresses found in it (one
 * per line), or nothing. `longestRun` is mapLines' maxLineBytes: the run it
 * drops as too long is one this map would find nothing in.
 *
 * @example
 * grepLines().map(Buffer.from('from 203.0.113.9 port 22')) // => '203.0.113.9\n'
 */
export function grepLines(longestRun = MAX_LINE_BYTES): LineMap {
  return {
    longLines: 'split',
    map(line) {
      const found = extractAddresses(Buffer.from(line.buffer, line.byteOffset, line.length).toString('latin1'), longestRun);
      return found.length === 0 ? '' : `${found.join('\n')}\n`;
    },
  };
}

/** {@link grepLines} for the batch's MAX_LINE_BYTES. */
export const GREP_LINES: LineMap = grepLines();
