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
 * @module
 */

/** Longest line kept whole; any address is far shorter. */
export const MAX_LINE_BYTES = 64 * 1024;
const ECHO_BYTES = 256;
const ELLIPSIS_LF = new Uint8Array([0xe2, 0x80, 0xa6, 0x0a]);
const LF = 10;

function concat(parts: readonly Uint8Array[], size: number, alloc: (size: number) => Uint8Array = (n) => new Uint8Array(n)): Uint8Array {
  const out = alloc(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Yields blocks of complete lines (the last block may lack a final LF).
 * `alloc` provides each block's memory (a view over a reusable buffer);
 * `onRead` is told how many bytes of input were consumed (for progress).
 */
export async function* readBlocks(
  input: AsyncIterable<Uint8Array | string>,
  target: number,
  alloc?: (size: number) => Uint8Array,
  onRead?: (bytes: number) => void,
): AsyncGenerator<Uint8Array> {
  /** Complete lines waiting to be emitted. */
  let done: Uint8Array[] = [];
  let doneSize = 0;
  /** The unfinished last line. */
  let tail: Uint8Array[] = [];
  let tailSize = 0;
  let discarding = false;
  for await (const raw of input) {
    const whole = typeof raw === 'string' ? Buffer.from(raw) : raw;
    onRead?.(whole.length);
    // Big reads are taken in target-sized pieces, so blocks stay near `target`.
    for (let off = 0; off < whole.length; off += target) {
      let chunk = whole.subarray(off, off + target);
      // 1. Inside an overlong line: drop bytes up to its end.
      if (discarding) {
        const k = chunk.indexOf(LF);
        if (k < 0) continue;
        chunk = chunk.subarray(k + 1);
        discarding = false;
      }
      const nl = chunk.lastIndexOf(LF);
      if (nl < 0) {
        // 2. No line ends in this chunk: it extends the tail.
        tail.push(chunk);
        tailSize += chunk.length;
        if (tailSize > MAX_LINE_BYTES) {
          const head = concat(tail, tailSize).subarray(0, ECHO_BYTES);
          done.push(head, ELLIPSIS_LF);
          doneSize += head.length + ELLIPSIS_LF.length;
          tail = [];
          tailSize = 0;
          discarding = true;
        }
        continue;
      }
      // 3. The tail and the chunk up to its last LF are complete lines.
      done.push(...tail, chunk.subarray(0, nl + 1));
      doneSize += tailSize + nl + 1;
      tail = nl + 1 < chunk.length ? [chunk.subarray(nl + 1)] : [];
      tailSize = chunk.length - nl - 1;
      if (doneSize >= target) {
        yield concat(done, doneSize, alloc);
        done = [];
        doneSize = 0;
      }
    }
  }
  // 4. Whatever is left, including a last line without LF.
  if (!discarding) {
    done.push(...tail);
    doneSize += tailSize;
  }
  if (doneSize > 0) yield concat(done, doneSize, alloc);
}
