/**
 * The batch kernel (kernel/rows.ts, WebAssembly) against what it stands in
 * for: its bytes against its source, its IPv4 lookup against core's, its
 * line scanner against core's parser and the batch's line rules. Its rows
 * are held to check()'s output by batch.test.ts ("the record-id path").
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { openSync, parseIPv4Bytes, type IpIntel } from '@ipintel/core';
import { flattenPrefixes, type PrefixEntry } from '@ipintel/core/writer';
import { flatRanges, leafOfIPv4 } from '@ipintel/core/internal';
import { RowKernel, SCAN_ENDED, SCAN_FULL, SCAN_SLOW } from '../src/batch/kernel.js';
import { createKernelSpace, GROUP, kernelSizing, MAX_OUTPUT_REGIONS } from '../src/batch/space.js';
import { prng, syntheticModel, trickyModel, writeSnapshot } from './snapshots.js';

const RUNS = Number(process.env['FC_RUNS'] ?? 300);

/**
 * A model whose IPv4 ranges are many (a 2^20 table) and dense in a few /16s
 * (prefixes /16 to /32): /24s split into slice blocks, one with 32 starts
 * (more than 16: the binary search).
 */
function denseModel(): ReturnType<typeof trickyModel> {
  const base = syntheticModel(10, 5_000, 11);
  const rnd = prng(5);
  const p4: PrefixEntry<number>[] = [];
  const prefix = (addr: number, len: number): void => {
    const start = BigInt(addr >>> 0) & ~((1n << BigInt(32 - len)) - 1n) & 0xffffffffn;
    p4.push({ start, length: len, value: 1 + Math.floor(rnd() * 4_000) });
  };
  for (let i = 0; i < 70_000; i++) prefix(Math.floor(rnd() * 2 ** 32), 12 + Math.floor(rnd() * 13));
  const heads = [0x0a0b, 0x5060, 0xc633];
  for (let i = 0; i < 20_000; i++) prefix((heads[Math.floor(rnd() * heads.length)]! << 16) | Math.floor(rnd() * 0x10000), 16 + Math.floor(rnd() * 17));
  for (let i = 0; i < 32; i++) prefix(0x50607000 | (i << 3), 29);
  return { ...base, v4: flattenPrefixes(4, p4, 0) };
}

/** A kernel over a space of its own with no rows (the index and the scanner are all these tests read). */
const bareKernel = (intel: IpIntel): RowKernel => new RowKernel(createKernelSpace(intel, { runs: [], rowRuns: 0, pieces: [], render: null }, 1), 0);

describe('the batch kernel', () => {
  it('is what kernel/rows.ts compiles to (scripts/build-kernel.mjs --check)', () => {
    const script = fileURLToPath(new URL('../scripts/build-kernel.mjs', import.meta.url));
    const r = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('lays out a space for as many threads as --jobs takes (256) inside its memory, nothing overlapping', () => {
    // Three output regions a thread passed 2^31 at ~80 threads: the bitwise align wrapped, the layout went negative.
    const intel = openSync(writeSnapshot(trickyModel()));
    const space = createKernelSpace(intel, { runs: [], rowRuns: 0, pieces: [], render: null }, 256);
    const l = space.layout;
    const spans: [string, number, number][] = [
      ...l.threadAt.map((t, i): [string, number, number] => [`thread ${i}`, t, t + l.regions.sink + l.sinkBytes]),
      ...l.outAt.map((o, i): [string, number, number] => [`output region ${i}`, o, o + l.outBytes]),
      ['store', l.storeBase, l.storeBase + kernelSizing.store],
    ];
    let end = 64;
    for (const [name, from, to] of spans) {
      if (!(Number.isSafeInteger(from) && from >= end && to > from)) expect.fail(`${name} at ${from}..${to}, after ${end}`);
      end = to;
    }
    expect(end).toBeLessThanOrEqual(space.memory.buffer.byteLength);
    expect(space.memory.buffer.byteLength).toBeLessThanOrEqual(2 ** 31);
    expect(l.outAt.length).toBe(MAX_OUTPUT_REGIONS);
    // A thread far into the memory runs: its lookups agree with core's.
    const last = new RowKernel(space, 255);
    for (const a of flatRanges(intel, 4).starts) if ((last.fn.leaf(a) >>> 0) !== leafOfIPv4(intel, a)) expect(last.fn.leaf(a) >>> 0, `address ${a}`).toBe(leafOfIPv4(intel, a));
  });

  describe('leaf(): the leaf of an IPv4 address, as core finds it', () => {
    const snapshots: [string, () => IpIntel][] = [
      ['a small snapshot (2^16 table)', () => openSync(writeSnapshot(trickyModel()))],
      ['a dense one (2^20 table, slice blocks, long ones searched)', () => openSync(writeSnapshot(denseModel()))],
    ];
    it.each(snapshots)('%s: every range start, the address before it, and random addresses', (_name, make) => {
      const intel = make();
      const kernel = bareKernel(intel);
      const ranges = flatRanges(intel, 4);
      expect(ranges.starts.length).toBeGreaterThan(3);
      const same = (a: number): void => {
        const want = leafOfIPv4(intel, a);
        if ((kernel.fn.leaf(a) >>> 0) !== want) expect(kernel.fn.leaf(a) >>> 0, `address ${a >>> 0}`).toBe(want);
      };
      for (const a of ranges.starts) {
        same(a);
        if (a > 0) same(a - 1);
      }
      same(0xffffffff);
      fc.assert(fc.property(fc.integer({ min: 0, max: 0xffffffff }), (a) => same(a)), { numRuns: 20 * RUNS, seed: 3 });
    });
  });

  describe('scan(): lines cut, trimmed and parsed as the batch has always done it', () => {
    let kernel: RowKernel;
    beforeAll(() => {
      kernel = bareKernel(openSync(writeSnapshot(trickyModel())));
    });

    type Event = { ip: number; s: number; e: number } | { slow: [number, number] };

    /** The batch's line rules in plain TypeScript: LF-terminated lines, space/tab/CR trimmed, empty and # lines skipped, core's parser. */
    function reference(b: Uint8Array): { events: Event[]; lines: number } {
      const events: Event[] = [];
      let lines = 0;
      for (let pos = 0; pos < b.length; ) {
        let end = b.indexOf(10, pos);
        if (end < 0) end = b.length;
        let s = pos;
        let e = end;
        pos = end + 1;
        lines++;
        const pad = (c: number): boolean => c === 32 || c === 9 || c === 13;
        while (s < e && pad(b[s]!)) s++;
        while (e > s && pad(b[e - 1]!)) e--;
        if (s === e || b[s] === 35) continue;
        const a = parseIPv4Bytes(b, s, e);
        events.push(a >= 0 ? { ip: a, s, e } : { slow: [s, e] });
      }
      return { events, lines };
    }

    /** The kernel's scan over the whole input, flushing its queue whenever it is full. */
    function scanned(b: Uint8Array): { events: Event[]; lines: number } {
      kernel.view().set(b, kernel.inputAt);
      const events: Event[] = [];
      let lines = 0;
      let queued = 0;
      const take = (): void => {
        for (let j = 0; j < queued; j++) events.push({ ip: kernel.queue[3 * j]!, s: kernel.queue[3 * j + 1]!, e: kernel.queue[3 * j + 2]! });
        queued = 0;
      };
      for (let pos = 0; pos < b.length; ) {
        queued += kernel.fn.scan(kernel.inputAt, pos, b.length, kernel.queueAt, queued, GROUP, kernel.statusAt);
        const [how, next, read, s, e] = kernel.status;
        expect([SCAN_ENDED, SCAN_FULL, SCAN_SLOW]).toContain(how);
        if (how === SCAN_FULL) expect(queued).toBe(GROUP);
        lines += read!;
        pos = next!;
        take();
        if (how === SCAN_SLOW) events.push({ slow: [s!, e!] });
      }
      take();
      return { events, lines };
    }

    const octet = fc.oneof(fc.integer({ min: 0, max: 255 }).map(String), fc.constantFrom('256', '999', '00', '01', '1000', ''));
    const address = fc.tuple(octet, octet, octet, octet).map((p) => p.join('.'));
    const line = fc.oneof(
      { weight: 6, arbitrary: address },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom(' ', '\t', '\r', '  \r', '', '\v', '\u00a0'), address, fc.constantFrom(' ', '\t', '\r', '', '\r\r', '#')).map((p) => p.join('')) },
      { weight: 1, arbitrary: fc.constantFrom('', ' ', '#comment', ' # x', '::1', '2001:db8::1', '1.2.3', '1.2.3.4.5', '1..2.3', '.1.2.3', '1.2.3.', '١.٢.٣.٤', 'x') },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    );
    const input = fc.tuple(fc.array(line, { maxLength: 700 }), fc.boolean()).map(([ls, lf]) => new TextEncoder().encode(ls.join('\n') + (lf && ls.length > 0 ? '\n' : '')));

    it('queues the same addresses and hands over the same other lines, in order, counting the same lines', () => {
      fc.assert(
        fc.property(input, (b) => {
          expect(scanned(b)).toEqual(reference(b));
        }),
        { numRuns: RUNS, seed: 9 },
      );
    });

    it('counts a last line without LF, and LF-only input as empty lines', () => {
      expect(scanned(new TextEncoder().encode('1.2.3.4'))).toEqual({ events: [{ ip: 0x01020304, s: 0, e: 7 }], lines: 1 });
      expect(scanned(new TextEncoder().encode('\n\n\n'))).toEqual({ events: [], lines: 3 });
      expect(scanned(new TextEncoder().encode(' 10.0.0.1\r\n#x\n1.2.3.04\n'))).toEqual({
        events: [{ ip: 0x0a000001, s: 1, e: 9 }, { slow: [14, 22] }],
        lines: 3,
      });
    });
  });
});
