/**
 * Cuts a byte stream into blocks of whole lines, so blocks can be processed
 * independently (by workers) and still give one row per line in order.
 *
 * Memory is bounded whatever the input: a block is emitted once it reaches
 * `target` bytes, and a line that grows past MAX_LINE_BYTES without a newline
 * is replaced by its first ECHO_BYTES bytes plus `…` (it becomes an error row)
 * while the rest of it is discarded. Cutting happens on LF bytes, which never
 * occur inside a multi-byte UTF-8 sequence, so blocks decode independently.
 *
 * Each block is a view at offset 0 of a buffer nothing else uses, so the
 * buffer can be transferred to a worker without a copy.
 *
 * Slow inputs (`tail -f log | ipintel batch`, a script writing a line a
 * second): with `flushMs`, lines are not held until a block fills. Once
 * complete lines wait (or blocks were yielded since the last flush, whose
 * rows the consumer may still hold), the input has `flushMs` of reads to
 * fill the block; then what there is goes out as a short block, a flush
 * (empty when only earlier blocks were owed). The wait counts the time the
 * reads take to come (with --grep, the rewriting of lines upstream too), not
 * the consumer's (it restarts after each block the consumer takes), and
 * reads ready at once never let it end (quiet.ts), so fast inputs (files,
 * fast pipes) still give full blocks.
 *
 * @module
 */
import { QUIET, QuietReads, QuietTimer } from './quiet.js';

/** Longest line kept whole; any address is far shorter. */
export const MAX_LINE_BYTES = 64 * 1024;
const ECHO_BYTES = 256;
const ELLIPSIS_LF = new Uint8Array([0xe2, 0x80, 0xa6, 0x0a]);
const LF = 10;

/** The first ECHO_BYTES bytes of an overlong line, cut before a UTF-8 sequence they would split (so its echo has no U+FFFD). */
export function echoHead(line: Uint8Array): Uint8Array {
  let end = Math.min(ECHO_BYTES, line.length);
  // A continuation byte (10xxxxxx) at the cut: its sequence began before it; cut before the lead byte.
  if (end < line.length) while (end > 0 && (line[end]! & 0xc0) === 0x80) end--;
  return line.subarray(0, end);
}

function concat(parts: readonly Uint8Array[], size: number, alloc: (size: number) => Uint8Array = (n) => new Uint8Array(n)): Uint8Array {
  const out = alloc(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const BOM = [0xef, 0xbb, 0xbf];

/**
 * The input without one UTF-8 byte-order mark at its very start (the file's
 * encoding mark, not part of the first line; see address-text.ts). Chunks
 * are passed through untouched otherwise.
 */
export async function* dropLeadingBom(input: AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array> {
  let head: Uint8Array | null = new Uint8Array(0);
  for await (const raw of input) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    if (head === null) {
      yield chunk;
      continue;
    }
    // 1. Gather the first three bytes (a chunk may be shorter), then decide once.
    const joined: Uint8Array = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
    if (joined.length < BOM.length && BOM.slice(0, joined.length).every((b, i) => joined[i] === b)) {
      head = joined;
      continue;
    }
    head = null;
    const bom = BOM.every((b, i) => joined[i] === b);
    yield bom ? joined.subarray(BOM.length) : joined;
  }
  if (head !== null && head.length > 0) yield head; // a short input that only began like a BOM
}

/**
 * The input until `stop` resolves: then it ends at once, even while a read
 * is pending (a quiet pipe may never answer; its owner closes it).
 */
export async function* untilStopped<T>(input: AsyncIterable<T>, stop: Promise<unknown>): AsyncGenerator<T> {
  const it = input[Symbol.asyncIterator]();
  const STOP: unique symbol = Symbol('stop');
  const stopped = stop.then((): typeof STOP => STOP);
  for (;;) {
    const pending = it.next();
    const r = await Promise.race([pending, stopped]);
    if (typeof r === 'symbol') {
      pending.catch(() => undefined); // settles, or fails, once the owner closes the input
      return;
    }
    if (r.done === true) return;
    yield r.value;
  }
}

export interface ReadBlocksOptions {
  /** Memory for each block (a view over a reusable buffer). */
  readonly alloc?: (size: number) => Uint8Array;
  /** Told how many bytes of input were consumed (for progress). */
  readonly onRead?: (bytes: number) => void;
  /**
   * Asked when the input ends: true when a last line without LF was cut
   * short (an interrupted run) and must be dropped, not answered.
   */
  readonly dropLastLine?: () => boolean;
  /**
   * How long complete lines wait for more input before they are yielded as
   * a flush (see the module comment); absent or not finite: until the block
   * is full or the input ends.
   */
  readonly flushMs?: number;
  /** Told just before a flush is yielded: the input went quiet, the consumer should write out every row it holds. */
  readonly onFlush?: () => void;
}

/** Yields blocks of complete lines (the last block may lack a final LF). */
export async function* readBlocks(input: AsyncIterable<Uint8Array | string>, target: number, options: ReadBlocksOptions = {}): AsyncGenerator<Uint8Array> {
  const { alloc, onRead, flushMs, onFlush } = options;
  /** Complete lines waiting to be emitted. */
  let done: Uint8Array[] = [];
  let doneSize = 0;
  /** The unfinished last line. */
  let tail: Uint8Array[] = [];
  let tailSize = 0;
  let discarding = false;
  /** Blocks were yielded since the last flush: the consumer may hold their rows unwritten. */
  let owed = false;
  const piece = Math.min(target, MAX_LINE_BYTES);
  const quiet = flushMs !== undefined && Number.isFinite(flushMs) ? new QuietTimer(flushMs) : null;
  const reads = quiet === null ? input : new QuietReads(input, quiet, () => doneSize > 0 || owed);
  for await (const raw of reads) {
    if (raw === QUIET) {
      // 0. The input went quiet: the complete lines go out now.
      quiet!.reset();
      owed = false;
      onFlush?.();
      const flush = doneSize > 0 ? concat(done, doneSize, alloc) : new Uint8Array(0);
      done = [];
      doneSize = 0;
      yield flush;
      continue;
    }
    const whole = typeof raw === 'string' ? Buffer.from(raw) : raw;
    onRead?.(whole.length);
    // Big reads are taken in target-sized pieces, so blocks stay near `target` (and no piece
    // holds a whole line longer than MAX_LINE_BYTES: step 3).
    for (let off = 0; off < whole.length; off += piece) {
      let chunk = whole.subarray(off, off + piece);
      // 1. Inside an overlong line: drop bytes up to its end.
      if (discarding) {
        const k = chunk.indexOf(LF);
        if (k < 0) continue;
        chunk = chunk.subarray(k + 1);
        discarding = false;
      }
      let nl = chunk.lastIndexOf(LF);
      if (nl < 0) {
        // 2. No line ends in this chunk: it extends the tail.
        tail.push(chunk);
        tailSize += chunk.length;
        if (tailSize > MAX_LINE_BYTES) {
          const head = echoHead(concat(tail, tailSize));
          done.push(head, ELLIPSIS_LF);
          doneSize += head.length + ELLIPSIS_LF.length;
          tail = [];
          tailSize = 0;
          discarding = true;
        }
        continue;
      }
      // 3. The tail and the chunk up to its last LF are complete lines. The first of them, the
      //    tail and the chunk up to its first LF, may be longer than MAX_LINE_BYTES although
      //    no chunk without an LF took it past that (step 2): it is cut the same way, so that
      //    whether a line is overlong never depends on where the reads and pieces fall.
      //    (The other lines lie inside one piece, at most MAX_LINE_BYTES bytes.)
      if (tailSize > 0) {
        const first = chunk.indexOf(LF);
        if (tailSize + first > MAX_LINE_BYTES) {
          const head = echoHead(concat([...tail, chunk.subarray(0, first)], tailSize + first));
          done.push(head, ELLIPSIS_LF);
          doneSize += head.length + ELLIPSIS_LF.length;
          chunk = chunk.subarray(first + 1);
          nl -= first + 1;
          tail = [];
          tailSize = 0;
        }
      }
      done.push(...tail, chunk.subarray(0, nl + 1));
      doneSize += tailSize + nl + 1;
      tail = nl + 1 < chunk.length ? [chunk.subarray(nl + 1)] : [];
      tailSize = chunk.length - nl - 1;
      if (doneSize >= target) {
        // The wait for more input restarts after the consumer's turn: its time is not the input's.
        quiet?.reset();
        owed = true;
        yield concat(done, doneSize, alloc);
        done = [];
        doneSize = 0;
      }
    }
  }
  // 4. Whatever is left, including a last line without LF (unless it was cut short).
  if (!discarding && options.dropLastLine?.() !== true) {
    done.push(...tail);
    doneSize += tailSize;
  }
  if (doneSize > 0) yield concat(done, doneSize, alloc);
}
