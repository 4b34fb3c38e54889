/**
 * Rewriting input lines before they are checked: `batch` expands CIDR
 * blocks into their addresses (cidr.ts) and, with `--grep`, replaces each
 * line by the addresses found in it (grep.ts). Both are a LineMap applied to
 * the byte stream here, in the main thread, before the stream is cut into
 * blocks; the per-row hot loop does not change.
 *
 * Cost on the default path: a map may name a `marker` byte that every line
 * it changes contains (`/` for CIDR blocks); a chunk without it is passed on
 * as it is, found with one native indexOf per chunk.
 *
 * Lines longer than MAX_LINE_BYTES (they are not addresses): `pass` keeps
 * them unchanged (the block reader turns them into an error row, as
 * always); `split` maps them in pieces, with the result of the whole line:
 * - a piece ends after a byte that cannot be part of an address, so no run
 *   of address bytes (hex digits, `:`, `.`) is cut;
 * - the next piece begins with the two bytes before its cut: the map sees
 *   what precedes the piece's first run, as it would in the whole line
 *   (grep's `word/` rule), and they hold no address of their own (the
 *   second is not an address byte, so the first is at most a 1-byte run);
 * - a run longer than MAX_LINE_BYTES, which could not be held to its end,
 *   is dropped as it streams: a split map must find no address in such a
 *   run of a whole line either (grep.ts). The next piece begins with the
 *   run's last byte, for the same reason as above.
 *
 * @module
 */
import { MAX_LINE_BYTES } from './blocks.js';

export interface LineMap {
  /** A byte every line this map changes contains; lines of a chunk without it are kept unchanged. */
  readonly marker?: number;
  /** What to do with lines longer than MAX_LINE_BYTES (see the module comment). */
  readonly longLines: 'pass' | 'split';
  /** The replacement of one line (without its LF): LF-terminated lines, '' to drop it, null to keep it. */
  map(line: Uint8Array): string | null;
  /** True once the map wants the input to end (a CIDR block over the limit): nothing after that line is passed on. */
  done?(): boolean;
}

const LF = 10;

/** Bytes that may be part of an address as written in text (hex digits, `:`, `.`). */
function addressByte(b: number): boolean {
  return (b >= 48 && b <= 58) || b === 46 || (b >= 65 && b <= 70) || (b >= 97 && b <= 102);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * The input with every line passed through `m`. `cutLast()` says, at the
 * end of the input, whether the last line (without LF) was cut by an
 * interruption: it is then passed on unchanged, for the block reader to drop.
 * `maxLineBytes`: MAX_LINE_BYTES, smaller in tests.
 */
export async function* mapLines(input: AsyncIterable<Uint8Array>, m: LineMap, cutLast: () => boolean, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<Uint8Array> {
  let carry: Uint8Array = new Uint8Array(0);
  /** Inside a line longer than maxLineBytes that is passed unchanged, until its LF. */
  let passing = false;
  /** Inside a run of address bytes longer than maxLineBytes that is dropped (split), until a byte that ends it; its last byte so far. */
  let dropping = false;
  let runEnd = 0;
  for await (const chunk of input) {
    let buf = carry.length === 0 ? chunk : concat(carry, chunk);
    carry = new Uint8Array(0);
    if (passing) {
      const lf = buf.indexOf(LF);
      if (lf < 0) {
        yield buf;
        continue;
      }
      yield buf.subarray(0, lf + 1);
      buf = buf.subarray(lf + 1);
      passing = false;
    }
    if (dropping) {
      let end = 0;
      while (end < buf.length && addressByte(buf[end]!)) end++;
      if (end === buf.length) {
        runEnd = buf[end - 1] ?? runEnd;
        continue;
      }
      // The run ends here: the rest goes on after the run's last byte (see the module comment).
      buf = end > 0 ? buf.subarray(end - 1) : concat(Uint8Array.of(runEnd), buf);
      dropping = false;
    }
    const last = buf.lastIndexOf(LF);
    if (last < 0) {
      if (buf.length <= maxLineBytes) carry = buf;
      else if (m.longLines === 'pass') {
        yield buf;
        passing = true;
      } else {
        // Map the line up to its last byte that cannot be inside an address; keep the run after it, or drop it when too long.
        let cut = buf.length;
        while (cut > 0 && addressByte(buf[cut - 1]!)) cut--;
        const r = cut === 0 ? null : m.map(buf.subarray(0, cut));
        if (r !== null && r !== '') yield Buffer.from(r);
        if (buf.length - cut > maxLineBytes) {
          dropping = true;
          runEnd = buf[buf.length - 1]!;
        } else carry = buf.slice(Math.max(0, cut - 2));
      }
      continue;
    }
    carry = buf.slice(last + 1);
    const body = buf.subarray(0, last + 1);
    if (m.marker !== undefined && body.indexOf(m.marker) < 0) {
      yield body;
      continue;
    }
    yield* mapBody(body, m);
    if (m.done?.() === true) return;
  }
  if (carry.length > 0) {
    const r = passing || cutLast() ? null : m.map(carry);
    if (m.done?.() === true) return;
    if (r !== '') yield r === null ? carry : Buffer.from(r);
  }
}

/** Maps every line of `body` (which ends with LF): unchanged runs of lines are passed as views. */
function* mapBody(body: Uint8Array, m: LineMap): Generator<Uint8Array> {
  let kept = 0;
  let at = 0;
  while (at < body.length) {
    const lf = body.indexOf(LF, at);
    const r = m.marker === undefined || body.subarray(at, lf).indexOf(m.marker) >= 0 ? m.map(body.subarray(at, lf)) : null;
    if (r !== null) {
      if (at > kept) yield body.subarray(kept, at);
      if (m.done?.() === true) return;
      if (r !== '') yield Buffer.from(r);
      kept = lf + 1;
    }
    at = lf + 1;
  }
  if (kept < body.length) yield body.subarray(kept);
}
