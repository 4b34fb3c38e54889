import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync as openFd, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IpIntelError, loadSnapshot, open, openSync } from '../src/index.js';
import { planSnapshotFile } from '../src/node-shared.js';
import { HOST_SLACK, scratchHost } from '../src/node.js';
import { parseHeader, parsePrelude, type PlannedColumn } from '../src/snapshot/decode.js';
import { HEADER_SIZE } from '../src/snapshot/format.js';
import { encodeSnapshot } from '../src/writer.js';
import { modelFromPrefixes, stoppedClock } from '@ipintel/testkit';

const bytes = encodeSnapshot(
  modelFromPrefixes(
    Array.from({ length: 300 }, (_, i) => ({ start: BigInt(i) << 20n, length: 12, value: (i % 5) + 1 })),
    [{ start: 0x20014860n << 96n, length: 32, value: 3 }],
    6,
  ),
);
const dir = mkdtempSync(join(tmpdir(), 'ipintel-core-'));
const path = join(dir, 'test.ipintel');
writeFileSync(path, bytes);

describe('Node layer', () => {
  it('open (parallel inflate), openSync (native zlib) and loadSnapshot (fflate) give the same answers', async () => {
    // One stopped clock: the answers carry allocation_age_days, which follows the UTC day.
    const now = stoppedClock;
    const a = await open(path, { now });
    const b = openSync(path, { now });
    const c = loadSnapshot(bytes, { now });
    const d = await open(bytes, { now });
    const e = openSync(path, { now, preload: true });
    for (const ip of ['0.16.0.1', '1.2.3.4', '18.200.0.0', '2001:4860::1', '::1']) {
      expect(a.check(ip)).toEqual(c.check(ip));
      expect(b.check(ip)).toEqual(c.check(ip));
      expect(d.check(ip)).toEqual(c.check(ip));
      expect(e.check(ip)).toEqual(c.check(ip));
    }
  });

  it('reports a missing file as snapshot_not_found, naming the path', async () => {
    await expect(open(join(dir, 'nope.ipintel'))).rejects.toMatchObject({ code: 'snapshot_not_found' });
    expect(() => openSync(join(dir, 'nope.ipintel'))).toThrow(IpIntelError);
    expect(() => openSync(join(dir, 'nope.ipintel'))).toThrow(/nope\.ipintel/);
  });

  it('reports a path that names a directory (or no regular file) as snapshot_not_found, saying so', async () => {
    // Its reads would fail with a bare EISDIR; the explain sidecar's path likewise.
    for (const path of [dir, '/dev/null']) {
      const what = path === dir ? /is a directory/ : /not a regular file/;
      await expect(open(path)).rejects.toMatchObject({ code: 'snapshot_not_found', message: expect.stringMatching(what) });
      await expect(open(path, { inflate: (b) => b })).rejects.toMatchObject({ code: 'snapshot_not_found' });
      expect(() => openSync(path)).toThrow(expect.objectContaining({ code: 'snapshot_not_found', message: expect.stringMatching(what) }) as Error);
      expect(() => planSnapshotFile(path)).toThrow(expect.objectContaining({ code: 'snapshot_not_found' }) as Error);
    }
    writeFileSync(join(dir, 'ok.ipintel'), bytes);
    const explained = openSync(join(dir, 'ok.ipintel'), { explainPath: dir });
    expect(() => explained.check('8.8.8.8', { explain: true })).toThrow(expect.objectContaining({ code: 'explain_unavailable', message: expect.stringMatching(/a directory/) }) as Error);
  });

  // Before: a named pipe at the path waited for a writer in open(2), forever when none came (`ipintel batch`
  // then did not even stop on SIGTERM). It is refused as a directory is, by what it is, without waiting.
  describe.runIf(process.platform !== 'win32')('a named pipe at the path', () => {
    const fifo = join(dir, 'pipe.ipintel');
    beforeAll(() => execFileSync('mkfifo', [fifo]));
    // A load left waiting in open(2) by a failure is let go (this process's) or ended (a child's).
    const children: ChildProcess[] = [];
    afterAll(() => {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      try {
        closeSync(openFd(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // ENXIO: nobody is waiting to read it
      }
    });

    it('is no snapshot (snapshot_not_found) for open, openSync and the batch plan, nor an explain sidecar', async () => {
      await expect(open(fifo)).rejects.toMatchObject({ code: 'snapshot_not_found', message: expect.stringMatching(/not a regular file/) });
      const loads = [
        ['openSync(p)', 'snapshot_not_found'],
        ['planSnapshotFile(p)', 'snapshot_not_found'],
        [`openSync(${JSON.stringify(path)}, { explainPath: p }).check('8.8.8.8', { explain: true })`, 'explain_unavailable'],
      ] as const;
      for (const [load, code] of loads) {
        // In a process of its own, on dist/ (the test command builds first): a load waiting in open(2) would hold this one.
        const dist = fileURLToPath(new URL('../dist/', import.meta.url));
        const script = `const { openSync } = require(${JSON.stringify(`${dist}index.cjs`)}); const { planSnapshotFile } = require(${JSON.stringify(`${dist}internal.cjs`)}); const p = ${JSON.stringify(fifo)}; try { ${load}; console.log('no error') } catch (e) { console.log(e.code, e.message) }`;
        const child = spawn(process.execPath, ['-e', script]);
        children.push(child);
        let out = '';
        child.stdout.on('data', (b: Buffer) => (out += b.toString()));
        await new Promise((r) => child.on('close', r));
        expect(out, load).toMatch(new RegExp(`^${code} .*not a regular file`));
      }
    });
  });

  it.runIf(process.platform !== 'win32')('a device is no explain sidecar (explain_unavailable): before, /dev/null was read as a corrupt one, /dev/zero until memory ran out', () => {
    const intel = openSync(path, { explainPath: '/dev/null' });
    expect(intel.canExplain()).toBe(false);
    expect(() => intel.check('8.8.8.8', { explain: true })).toThrow(expect.objectContaining({ code: 'explain_unavailable', message: expect.stringMatching(/not a regular file/) }) as Error);
  });

  it('refuses arguments of the wrong type as invalid_input, and paths that name no file as snapshot_not_found', async () => {
    for (const bad of [new ArrayBuffer(8), 123, new DataView(new ArrayBuffer(8)), null, {}]) {
      await expect(open(bad as unknown as string)).rejects.toMatchObject({ code: 'invalid_input' });
      expect(() => openSync(bad as unknown as string)).toThrow(expect.objectContaining({ code: 'invalid_input' }) as Error);
    }
    await expect(open(new ArrayBuffer(8) as unknown as Uint8Array)).rejects.toThrow(/new Uint8Array\(buffer\)/);
    // A file used as a folder (ENOTDIR), a name too long (ENAMETOOLONG) and a path holding a NUL (no file system
    // takes one; before, node's bare TypeError ERR_INVALID_ARG_VALUE came through) name no file either.
    for (const missing of [join(path, 'x.ipintel'), join(dir, 'n'.repeat(5000)), join(dir, 'a\0b.ipintel')]) {
      await expect(open(missing)).rejects.toMatchObject({ code: 'snapshot_not_found' });
      expect(() => openSync(missing)).toThrow(expect.objectContaining({ code: 'snapshot_not_found' }) as Error);
      expect(() => planSnapshotFile(missing)).toThrow(expect.objectContaining({ code: 'snapshot_not_found' }) as Error);
      const explained = openSync(path, { explainPath: `${missing}.explain` });
      expect(explained.canExplain()).toBe(false);
      expect(() => explained.check('1.2.3.4', { explain: true })).toThrow(expect.objectContaining({ code: 'explain_unavailable' }) as Error);
    }
    // A number as explainPath would be read as a file descriptor (0: stdin, a wait without end).
    expect(() => openSync(path, { explainPath: 0 as unknown as string })).toThrow(expect.objectContaining({ code: 'invalid_input' }) as Error);
    await expect(open(path, { explainPath: 0 as unknown as string })).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('refuses a clock that is not a function, and a clock that gives no time, as invalid_input', async () => {
    expect(() => openSync(path, { now: 5 as unknown as () => number })).toThrow(expect.objectContaining({ code: 'invalid_input' }) as Error);
    for (const t of [Number.NaN, Number.POSITIVE_INFINITY, '1' as unknown as number]) {
      const intel = openSync(path, { now: () => t });
      for (let i = 0; i < 3; i++) {
        expect(() => intel.check('1.2.3.4')).toThrow(expect.objectContaining({ code: 'invalid_input', message: expect.stringMatching(/options\.now/) }) as Error);
        expect(() => intel.checkBatch(['1.2.3.4', '2001:4860::1'])).toThrow(expect.objectContaining({ code: 'invalid_input' }) as Error);
      }
    }
    // A good clock after a bad one: the same object keeps answering.
    let t = Number.NaN;
    const intel = openSync(path, { now: () => t });
    expect(() => intel.check('1.2.3.4')).toThrow(IpIntelError);
    t = Date.UTC(2026, 0, 1);
    expect(intel.check('1.2.3.4').ip).toBe('1.2.3.4');
  });

  it('refuses a damaged file on both paths', async () => {
    const bad = bytes.slice();
    bad[bad.length - 10]! ^= 0xff;
    writeFileSync(join(dir, 'bad.ipintel'), bad);
    await expect(open(join(dir, 'bad.ipintel'))).rejects.toMatchObject({ code: 'snapshot_corrupt' });
    expect(() => openSync(join(dir, 'bad.ipintel'))).toThrow(/corrupt/);
  });

  it('openSync checks every column, the one whose buffer was its read buffer too, with and without preload', () => {
    // The columns' blobs, where the reader plans them.
    const header = parseHeader(bytes, bytes.length);
    const { columns } = parsePrelude(header, bytes.subarray(HEADER_SIZE, HEADER_SIZE + 4 + header.metaSize));
    expect(columns.some((c) => !c.deflate)).toBe(true); // leaf.ids and the coordinates are stored raw: one of them hosts the read buffer
    for (const { name, at, stored } of columns) {
      if (stored === 0) continue;
      const bad = bytes.slice();
      bad[at + (stored >> 1)]! ^= 0x5a;
      const file = join(dir, `bad-${name}.ipintel`);
      writeFileSync(file, bad);
      for (const preload of [false, true]) {
        expect(() => openSync(file, { preload }), `${name}, preload ${preload}`).toThrow(new RegExp(`column ${name.replace('.', '\\.')} checksum`));
      }
    }
  });

  it('scratchHost: the largest column kept as stored, unless the read buffer would leave it much longer', () => {
    const column = (stored: number): PlannedColumn => ({ name: 'leaf.ids', at: 0, stored, rawSize: stored, deflate: false, filter: null, checksum: 0 });
    fc.assert(
      fc.property(fc.array(fc.nat(1 << 26)), fc.nat(1 << 26), (sizes, scratch) => {
        const kept = sizes.map(column);
        const host = scratchHost(kept, scratch);
        const largest = Math.max(-1, ...sizes);
        const fits = largest >= 0 && scratch - largest <= Math.max(HOST_SLACK, largest / 8);
        expect(host === undefined).toBe(!fits);
        if (host !== undefined) expect(host.stored).toBe(largest);
      }),
    );
  });
});
