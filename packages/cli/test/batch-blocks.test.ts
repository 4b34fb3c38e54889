/**
 * readBlocks (batch/blocks.ts) on slow inputs: with `flushMs`, complete
 * lines do not wait for a full block once the input goes quiet, and inputs
 * whose reads are ready at once still give full blocks.
 *
 * No test here measures time: an input waits on a promise the test holds,
 * the reader is awaited until it answers, and the quiet points of the
 * property are made with fake timers (the reader's wait ends exactly there).
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { echoHead, MAX_LINE_BYTES, readBlocks } from '../src/batch/blocks.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 100) });

const LF = 10;
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array): string => Buffer.from(b).toString();

/** A promise the test resolves. */
function gate(): { readonly wait: Promise<void>; readonly open: () => void } {
  let open = (): void => undefined;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/** `bytes` in reads of the given sizes (cycled), every read ready at once. */
async function* fastReads(bytes: Uint8Array, sizes: readonly number[]): AsyncGenerator<Uint8Array> {
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const n = sizes[i % sizes.length]!;
    yield bytes.subarray(at, at + n);
    at += n;
  }
}

describe('readBlocks on a slow input (flushMs)', () => {
  it('yields the complete lines read as a short block while the input is quiet, and keeps the unfinished line for later', async () => {
    const more = gate();
    let ended = false;
    async function* input(): AsyncGenerator<Uint8Array> {
      yield enc('8.8.8.8\n1.1.1.1\n9.9');
      await more.wait; // quiet until the test says
      yield enc('.9.9\n2001:db8::1');
      ended = true;
    }
    let flushes = 0;
    const blocks = readBlocks(input(), 32 * 1024, { flushMs: 1, onFlush: () => flushes++ });
    const first = await blocks.next();
    expect(first.done).toBe(false);
    expect(text(first.value as Uint8Array)).toBe('8.8.8.8\n1.1.1.1\n');
    expect(flushes).toBe(1);
    expect(ended).toBe(false);
    more.open();
    const rest: string[] = [];
    for await (const b of blocks) rest.push(text(b));
    expect(rest).toEqual(['9.9.9.9\n2001:db8::1']);
    expect(flushes).toBe(1);
  });

  it('after a full block, a quiet input gets an empty flush (the consumer may hold that block unwritten)', async () => {
    const more = gate();
    async function* input(): AsyncGenerator<Uint8Array> {
      yield enc('1.1.1.1\n'.repeat(8)); // exactly one block of 64 bytes
      await more.wait;
      yield enc('8.8.8.8\n');
    }
    let flushes = 0;
    const blocks = readBlocks(input(), 64, { flushMs: 1, onFlush: () => flushes++ });
    expect(text((await blocks.next()).value as Uint8Array)).toBe('1.1.1.1\n'.repeat(8));
    expect(flushes).toBe(0);
    const flush = await blocks.next();
    expect((flush.value as Uint8Array).length).toBe(0);
    expect(flushes).toBe(1);
    more.open();
    const rest: string[] = [];
    for await (const b of blocks) rest.push(text(b));
    expect(rest).toEqual(['8.8.8.8\n']);
  });

  it('a trickle that never pauses for flushMs is flushed too: the wait runs across reads, not per read', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const more = gate();
      async function* input(): AsyncGenerator<Uint8Array> {
        for (const ip of ['8.8.8.8', '1.1.1.1', '9.9.9.9', '2.2.2.2']) {
          yield enc(`${ip}\n`);
          await new Promise((r) => setImmediate(r)); // the reader waits on this read
          vi.advanceTimersByTime(20); // each read comes 20 ms after the one before, flushMs is 50
        }
        await more.wait;
      }
      const blocks = readBlocks(input(), 32 * 1024, { flushMs: 50 });
      // The wait began with the first line; 60 ms on, three reads later, it ends.
      expect(text((await blocks.next()).value as Uint8Array)).toBe('8.8.8.8\n1.1.1.1\n9.9.9.9\n');
      more.open();
      const rest: string[] = [];
      for await (const b of blocks) rest.push(text(b));
      expect(rest).toEqual(['2.2.2.2\n']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('an input whose reads are ready at once gives the same full blocks as without flushMs, even with flushMs 0', async () => {
    const rnd = fc.sample(fc.integer({ min: 1, max: 70_000 }), { numRuns: 200, seed: 5 });
    const bytes = enc(Array.from({ length: 60_000 }, (_, i) => `${i % 256}.${(i >> 8) % 256}.1.${i % 7}`).join('\n'));
    const sizes = (b: Iterable<Uint8Array>): number[] => Array.from(b, (x) => x.length);
    const collect = async (flushMs?: number): Promise<Uint8Array[]> => {
      const out: Uint8Array[] = [];
      for await (const b of readBlocks(fastReads(bytes, rnd), 32 * 1024, flushMs === undefined ? {} : { flushMs, onFlush: () => expect.fail('a flush') })) out.push(b.slice());
      return out;
    };
    const plain = await collect();
    const flushing = await collect(0);
    expect(sizes(flushing)).toEqual(sizes(plain));
    expect(Buffer.concat(flushing).equals(Buffer.from(bytes))).toBe(true);
    expect(plain.length).toBeGreaterThan(10);
    for (const b of plain.slice(0, -1)) expect(b.length).toBeGreaterThanOrEqual(32 * 1024);
  });

  it('time the consumer spends on a block is not counted as waiting on the input: a fast input read by a slow consumer keeps full blocks', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const bytes = enc('1.1.1.1\n'.repeat(100));
      const got: number[] = [];
      // Reads of 12 bytes: a block of 64 bytes takes several reads, each racing the wait; the consumer takes 1 s a block.
      for await (const b of readBlocks(fastReads(bytes, [12]), 64, { flushMs: 50, onFlush: () => expect.fail('a flush') })) {
        got.push(b.length);
        vi.advanceTimersByTime(1000);
      }
      expect(got.slice(0, -1).every((n) => n >= 64)).toBe(true);
      expect(got.reduce((a, n) => a + n, 0)).toBe(bytes.length);
    } finally {
      vi.useRealTimers();
    }
  });

  it('leaves no timer behind when the input ends or fails while lines wait (none keeps the process up)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      async function* ends(): AsyncGenerator<Uint8Array> {
        yield enc('8.8.8.8\n');
      }
      async function* fails(): AsyncGenerator<Uint8Array> {
        yield enc('8.8.8.8\n');
        throw new Error('read failed');
      }
      const all: string[] = [];
      for await (const b of readBlocks(ends(), 1024, { flushMs: 50 })) all.push(text(b));
      expect(all).toEqual(['8.8.8.8\n']);
      expect(vi.getTimerCount()).toBe(0);
      await expect(async () => {
        for await (const b of readBlocks(fails(), 1024, { flushMs: 50 })) all.push(text(b));
      }).rejects.toThrow('read failed');
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a consumer that stops at a flush is not held by the read still pending, and the input is told to end', async () => {
    const quiet = gate(); // the pipe stays quiet until its owner closes it, after the consumer stopped
    let closed = false;
    let readOn = false;
    async function* input(): AsyncGenerator<Uint8Array> {
      try {
        yield enc('8.8.8.8\n');
        await quiet.wait;
        yield enc('1.1.1.1\n');
        readOn = true;
      } finally {
        closed = true;
      }
    }
    const blocks = readBlocks(input(), 1024, { flushMs: 1 });
    expect(text((await blocks.next()).value as Uint8Array)).toBe('8.8.8.8\n');
    expect(await blocks.return(undefined)).toEqual({ done: true, value: undefined });
    expect(closed).toBe(false);
    // The input's return waits behind its read (an async generator's requests queue): it ends once the read settles.
    quiet.open();
    await new Promise((r) => setImmediate(r));
    expect(closed).toBe(true);
    expect(readOn).toBe(false);
  });

  it('property: whatever the reads and quiet points, the blocks are the input, every line once and whole; a quiet point flushes every complete line read; other blocks are full', async () => {
    const FLUSH = 50;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.stringMatching(/^[0-9a-f.:#]{0,12}$/), { maxLength: 60 }),
          fc.boolean(),
          fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 12 }),
          fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
          fc.integer({ min: 1, max: 64 }),
          async (lines, lastLf, sizes, quietAfter, target) => {
            const bytes = enc(lines.join('\n') + (lastLf && lines.length > 0 ? '\n' : ''));
            /** What the consumer got so far: bytes, and full blocks since the last flush. */
            let received = 0;
            let blocksSinceFlush = 0;
            let isFlush = false;
            let flushSeen = (): void => undefined;
            const blocks: { readonly bytes: Uint8Array; readonly flush: boolean }[] = [];
            const problems: string[] = [];
            let owedQuiet = 0;
            async function* input(): AsyncGenerator<Uint8Array> {
              for (let at = 0, i = 0; at < bytes.length; i++) {
                const n = sizes[i % sizes.length]!;
                yield bytes.subarray(at, at + n);
                at = Math.min(bytes.length, at + n);
                if (quietAfter[i % quietAfter.length] !== true) continue;
                // A quiet point: the input waits flushMs. Owed: complete lines not handed out yet, or full blocks since the last flush.
                const readEnd = bytes.subarray(0, at).lastIndexOf(LF) + 1;
                const owed = received < readEnd || blocksSinceFlush > 0;
                const seen = new Promise<void>((r) => (flushSeen = r));
                await new Promise((r) => setImmediate(r)); // the reader is waiting on this read now
                vi.advanceTimersByTime(FLUSH);
                if (!owed) continue;
                owedQuiet++;
                await seen;
                if (received !== readEnd) problems.push(`quiet at ${at}: lines up to ${readEnd} read, ${received} handed out`);
              }
            }
            const reader = readBlocks(input(), target, { flushMs: FLUSH, onFlush: () => (isFlush = true) });
            for await (const b of reader) {
              blocks.push({ bytes: b.slice(), flush: isFlush });
              received += b.length;
              blocksSinceFlush = isFlush ? 0 : blocksSinceFlush + 1;
              if (isFlush) flushSeen();
              isFlush = false;
            }
            expect(problems).toEqual([]);
            expect(Buffer.concat(blocks.map((b) => b.bytes)).equals(Buffer.from(bytes))).toBe(true);
            expect(blocks.filter((b) => b.flush)).toHaveLength(owedQuiet);
            blocks.forEach((b, i) => {
              const last = i === blocks.length - 1;
              if (!last && b.bytes.length > 0) expect(b.bytes[b.bytes.length - 1], `block ${i} ends a line`).toBe(LF);
              if (!last && !b.flush) expect(b.bytes.length, `block ${i} is full`).toBeGreaterThanOrEqual(target);
              if (b.bytes.length === 0) expect(b.flush, `empty block ${i} is a flush`).toBe(true);
            });
          },
        ),
      );
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('readBlocks: lines longer than MAX_LINE_BYTES', () => {
  // What a line is in the blocks: itself, or, longer than MAX_LINE_BYTES, its head and `…`.
  const expected = (line: Uint8Array): Uint8Array => (line.length > MAX_LINE_BYTES ? Buffer.concat([echoHead(line), enc('…')]) : line);

  it('property: a line is cut to its head whatever the reads and the block size (before, a line was kept whole when the piece that took it past 64 KiB also held its LF)', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Lines around the limit (padding is what makes an address line long: `1.1.1.1` and spaces).
        fc.array(fc.tuple(fc.constantFrom('1.1.1.1', '#', ''), fc.integer({ min: 0, max: MAX_LINE_BYTES + 40_000 })), { minLength: 1, maxLength: 5 }),
        fc.array(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 5 }),
        fc.constantFrom(37, 2048, 32 * 1024, 100_000),
        async (specs, sizes, target) => {
          const lines = specs.map(([head, pad]) => enc(head + ' '.repeat(pad)));
          const bytes = Buffer.concat(lines.flatMap((l) => [l, Uint8Array.of(LF)]));
          const got: Uint8Array[] = [];
          for await (const b of readBlocks(fastReads(bytes, sizes), target)) got.push(b.slice());
          const want = Buffer.concat(lines.flatMap((l) => [expected(l), Uint8Array.of(LF)]));
          expect(Buffer.concat(got).equals(want)).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('the same line is an error-row echo at every offset (the case that showed it: 1.1.1.1 and 70,000 spaces after a 20,000-byte comment)', async () => {
    const long = enc(`1.1.1.1${' '.repeat(70_000)}`);
    for (const before of [0, 10_000, 20_000, 30_000]) {
      const bytes = Buffer.concat([enc(before > 0 ? `${'#'.repeat(before)}\n` : ''), long, Uint8Array.of(LF)]);
      const got: Uint8Array[] = [];
      for await (const b of readBlocks(fastReads(bytes, [1 << 20]), 32 * 1024)) got.push(b.slice());
      const lines = Buffer.concat(got).toString().split('\n');
      expect(lines[before > 0 ? 1 : 0], `after ${before} bytes`).toBe(`1.1.1.1${' '.repeat(249)}…`);
    }
  });
});
