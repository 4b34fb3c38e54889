/**
 * `batch` input beyond one address per line: CIDR blocks expanded into
 * their addresses (and the limit above which the run stops with a usage
 * error), and `--grep`, which takes the addresses written anywhere in log
 * lines. mapLines, the stream rewriter under both, is checked against a
 * line-by-line oracle for any chunking of its input.
 */
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSync, parseAddress, type IpIntel } from '@ipintel/core';
import { onOneUtcDay } from '@ipintel/testkit';
import { MAX_LINE_BYTES } from '../src/batch/blocks.js';
import { extractAddresses, grepLines } from '../src/batch/grep.js';
import { mapLines, type LineMap } from '../src/batch/lines.js';
import { parseCidr } from '../src/batch/cidr.js';
import { runCli } from '../src/cli.js';
import { captureIo, runBatch } from './io.js';
import { trickyModel, writeSnapshot } from './snapshots.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 100) });

let snap: string;
let intel: IpIntel;
beforeAll(() => {
  snap = writeSnapshot(trickyModel());
  intel = openSync(snap);
});

const batch = (input: string, args: string[] = []) => runBatch(snap, input, args);

const rowsOf = (ips: readonly string[]): string => ips.map((ip) => `${JSON.stringify(intel.check(ip))}\n`).join('');
/**
 * The batch's output of `input` is check()'s rows of `ips`. Rows carry allocation_age_days, which moves at
 * 00:00 UTC, and the batch has no clock option: compared again if the UTC day changed in between (testkit).
 */
const expectRows = (input: string, args: string[], ips: readonly string[]) =>
  onOneUtcDay(async () => {
    const r = await batch(input, args);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toBe(rowsOf(ips));
  });

/** `text` cut into chunks of `size` bytes (the last one shorter), as a pipe or a file delivers it. */
const chunked = (text: string, size: number): Buffer[] => {
  const bytes = Buffer.from(text, 'latin1');
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
};

describe('batch: CIDR blocks', () => {
  it('a CIDR line gives one row per address, in order, among ordinary lines', async () => {
    const ips = ['8.8.8.8', '1.2.3.0', '1.2.3.1', '1.2.3.2', '1.2.3.3', '2001:db8::', '2001:db8::1', '2001:db8::2', '2001:db8::3', '::ffff:1.1.1.0', '::ffff:1.1.1.1', '1.1.1.1', '9.9.9.9'];
    await expectRows('8.8.8.8\n# see 10.0.0.0/8 below\n1.2.3.0/30\n  2001:db8::/126 \r\n::ffff:1.1.1.0/127\n1.1.1.1/32\n9.9.9.9', [], ips);
  });

  it.each(['10.0.0.1/30', '10.0.0.0/33', '10.0.0.0/08', '10.0.0.0/', '/24', '10.0.0.0/24/1', 'x/24', '10.0.0.0/+8', '2001:db8::/129', '010.0.0.0/24'])(
    'a line with a "/" that is not exactly a CIDR block is an invalid line: %s',
    async (line) => {
      const r = await batch(`8.8.8.8\n${line}\n`);
      expect(r.code).toBe(1);
      const rows = r.out.trimEnd().split('\n').map((l) => JSON.parse(l));
      expect(rows).toHaveLength(2);
      expect(rows[1]).toMatchObject({ ip: line, error: { code: 'invalid_ip' } });
    },
  );

  it('a block over --cidr-limit stops the run before it: earlier rows written, output closed, usage error', async () => {
    await onOneUtcDay(async () => {
      const r = await batch('8.8.8.8\n10.0.0.0/8\n1.1.1.1\n', ['--output', 'json']);
      expect(r.code).toBe(2);
      expect(JSON.parse(r.out)).toEqual([intel.check('8.8.8.8')]);
      expect(r.err).toMatch(/^ipintel batch: 10\.0\.0\.0\/8 holds 16,777,216 addresses, more than --cidr-limit 65,536 \(the output stops before it, after 1 rows\)/);
    });
    const four = await batch('1.2.3.0/30\n1.2.3.0/29\n', ['--cidr-limit', '4']);
    expect(four.code).toBe(2);
    expect(four.out.trimEnd().split('\n')).toHaveLength(4);
    expect((await batch('2001:db8::/112\n', ['--output', 'csv', '--fields', 'ip'])).out.trimEnd().split('\n')).toHaveLength(65_537);
  });

  it.each([['0'], ['abc'], ['16777217'], ['-1']])('--cidr-limit %s is a usage error', async (v) => {
    const r = await batch('8.8.8.8\n', ['--cidr-limit', v]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--cidr-limit must be a whole number 1\.\.16,777,216|--cidr-limit needs a value/);
  });

  it('line numbers in the message count expanded addresses, and say so', async () => {
    const r = await batch('1.2.3.0/30\nnope\n');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/first: line 5: .*\(line numbers count each address of an expanded CIDR block as a line\)/);
  });

  // Before: a block padded past 64 KiB was expanded when it reached the map whole (a file, read in 1 MiB chunks) and an error
  // row when a read ended inside it (a pipe): a line longer than 64 KiB is an error row, as any other (docs/cli.md, "Input lines").
  it('a CIDR line longer than 64 KiB is an error row, however the input is read', async () => {
    const line = `1.2.3.0/30${' '.repeat(MAX_LINE_BYTES)}`;
    const text = `8.8.8.8\n${line}\n9.9.9.9\n`;
    for (const size of [MAX_LINE_BYTES, 1 << 20]) {
      const c = captureIo();
      const code = await runCli(['batch', '-', '--snapshot', snap, '--fields', 'ip'], { ...c.io, stdin: Readable.from(chunked(text, size)) });
      const rows = c.stdout().trimEnd().split('\n').map((l) => JSON.parse(l) as { ip: string; error?: { code: string } });
      expect(rows.map((r) => [r.ip, r.error?.code ?? null]), `chunks of ${size}`).toEqual([['8.8.8.8', null], [`${line.slice(0, 256)}…`, 'invalid_ip'], ['9.9.9.9', null]]);
      expect(code).toBe(1);
    }
  });

  it('parseCidr: exactly a block, host bits zero, IPv4-mapped keeps its IPv6 length', () => {
    expect(parseCidr('10.0.0.0/30')).toEqual({ version: 4, first: 167772160n, length: 30, size: 4n });
    expect(parseCidr('::ffff:10.0.0.0/126')).toEqual({ version: 6, first: (0xffffn << 32n) + 167772160n, length: 126, size: 4n });
    expect(parseCidr('::/0')?.size).toBe(1n << 128n);
    expect(parseCidr('10.0.0.1/30')).toBeNull();
    expect(parseCidr('10.0.0.0')).toBeNull();
  });
});

describe('batch --grep', () => {
  const LOG: readonly [string, readonly string[]][] = [
    ['203.0.113.7 - - [22/Feb/2026:10:00:01 +0000] "GET /index.html HTTP/1.1" 200 612 "-" "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"', ['203.0.113.7']],
    ['2001:db8::7 - - [22/Feb/2026:10:00:02 +0000] "POST /api HTTP/2.0" 201 17 "https://example.test/" "curl/8.5.0"', ['2001:db8::7']],
    ['10.0.0.5 - - [22/Feb/2026:10:00:03 +0000] "GET / HTTP/1.1" 200 5 "-" "-" "198.51.100.7, 192.0.2.1"', ['10.0.0.5', '198.51.100.7', '192.0.2.1']],
    ['Feb 22 10:00:04 web1 sshd[1234]: Failed password for invalid user admin from 185.220.101.1 port 52211 ssh2', ['185.220.101.1']],
    ['Feb 22 10:00:05 web1 sshd[1235]: Accepted publickey for deploy from 2a00:1450:4001:81c::200e port 40022 ssh2: ED25519 SHA256:abc', ['2a00:1450:4001:81c::200e']],
    ['Feb 22 10:00:06 web1 sshd[1236]: Connection closed by authenticating user root 1.1.1.1 port 5555 [preauth]', ['1.1.1.1']],
    ['Feb 22 10:00:07 lb haproxy[99]: 8.8.4.4:51234 [22/Feb/2026:10:00:07.123] fe be/srv1 0/0/1/2/3 200 512 - - ---- 1/1/0/0/0 0/0 "GET / HTTP/1.1"', ['8.8.4.4']],
    ['Feb 22 10:00:08 fw kernel: IN=eth0 OUT= MAC=00:1a:2b:3c:4d:5e:00:1a:2b:3c:4d:5e:08:00 SRC=192.0.2.44 DST=198.51.100.1 LEN=60 TTL=49 PROTO=TCP SPT=443 DPT=51000', ['192.0.2.44', '198.51.100.1']],
    ['Feb 22 10:00:09 mail postfix/smtpd[77]: connect from unknown[198.51.100.23]', ['198.51.100.23']],
    ['[Sun Feb 22 10:00:10.123456 2026] [core:error] [pid 42] [client 192.0.2.1:55060] AH00126: Invalid URI', ['192.0.2.1']],
    ['upstream [2001:db8::2]:443 then [::1]:8080 and ::ffff:203.0.113.9 via fe80::1%eth0', ['2001:db8::2', '::1', '::ffff:203.0.113.9', 'fe80::1']],
    ['redirect to http://192.0.2.9/login (from 1.2.3.4.) at 12:34:56.789, build 1.2.3.4.5, ip:4.4.4.4, peer 2001:db8::1: closed', ['192.0.2.9', '1.2.3.4', '4.4.4.4', '2001:db8::1']],
    ['no address here: version 2.0, time 10:00:01, hex cafe dead:beef, 999.1.1.1', []],
    // Only the quad right after `word/` is a product version; a later one in the same run is an address.
    ['Foo/1.2.3.4..5.6.7.8 Chrome/120.0.0.0 Version/17.4.1.2.3 Safari/1.2.3.4.', ['5.6.7.8']],
  ];

  it.each(LOG)('finds the addresses of a real log line: %s', (line, want) => {
    expect(extractAddresses(line)).toEqual(want);
  });

  it('rows are the addresses found, in order; lines without one give none; no error rows', async () => {
    await expectRows(`${LOG.map(([l]) => l).join('\n')}\n# 9.9.9.9 in a comment is found too\n\n`, ['--grep'], [...LOG.flatMap(([, ips]) => ips), '9.9.9.9']);
  });

  it('--grep does not expand CIDR blocks, and does not go with --cidr-limit', async () => {
    await expectRows('route 10.0.0.0/30 via 192.0.2.1\n', ['--grep'], ['10.0.0.0', '192.0.2.1']);
    expect((await batch('x\n', ['--grep', '--cidr-limit', '4'])).code).toBe(2);
  });

  it('property: every address embedded in a generated log line is found, in order, and nothing else', () => {
    const valid = (s: string): boolean => {
      try {
        parseAddress(s);
        return true;
      } catch {
        return false;
      }
    };
    const v4 = fc.ipV4().filter(valid);
    const v6 = fc.ipV6().filter(valid);
    const port = fc.integer({ min: 1, max: 65535 });
    const embedded = fc.oneof(
      v4.map((a) => [a, a] as const),
      v6.map((a) => [a, a] as const),
      fc.tuple(v4, port).map(([a, p]) => [`${a}:${p}`, a] as const),
      fc.tuple(v6, port).map(([a, p]) => [`[${a}]:${p}`, a] as const),
      fc.tuple(fc.oneof(v4, v6), fc.constantFrom('(%)', '[%]', '"%"', '<%>', '%,', '%.', '%;', 'src=%', 'from=%', 'client:%', '%:')).map(([a, w]) => [w.replace('%', a), a] as const),
      v6.map((a) => [`${a}%eth0`, a] as const),
    );
    const filler = fc.constantFrom('GET', '"POST', '/index.html', 'HTTP/1.1"', '200', '-', 'sshd[1234]:', 'Failed', 'password', 'for', 'root', 'port', '[22/Feb/2026:10:00:01', '+0000]', 'Mozilla/5.0', 'Chrome/120.0.0.0', 'ssh2', '12:34:56', 'user=admin', 'v1.2.3.4.5');
    const token = fc.oneof({ weight: 1, arbitrary: embedded.map((e) => ({ text: e[0], address: e[1] })) }, { weight: 2, arbitrary: filler.map((text) => ({ text, address: null as string | null })) });
    fc.assert(
      fc.property(fc.array(token, { maxLength: 12 }), (tokens) => {
        const line = tokens.map((t) => t.text).join(' ');
        expect(extractAddresses(line)).toEqual(tokens.flatMap((t) => (t.address === null ? [] : [t.address])));
      }),
      { numRuns: 500 },
    );
  });
});

describe('batch --grep: lines longer than 64 KiB', () => {
  /** The --grep rows' addresses of `text` read in chunks of `size`, the exit code, stderr. */
  const grepRows = async (text: string, size: number) => {
    const c = captureIo();
    const code = await runCli(['batch', '-', '--snapshot', snap, '--grep', '--fields', 'ip'], { ...c.io, stdin: Readable.from(chunked(text, size)) });
    return { code, err: c.stderr(), ips: c.stdout().split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { ip: string }).ip) };
  };

  // Before: a run of address characters longer than a piece was cut anywhere, and the piece after a cut read on its own: here the
  // last piece (chunks of 64 KiB) is `end`, taken as an address the whole line does not hold.
  it.each([
    ['hex digits and colons', 'a:', '1:2:3:4:5:6:7:8'],
    ['digits and dots', '5.', '1.2.3.4'],
  ])('a run of %s longer than 64 KiB holds no address, whichever piece ends it', async (_, unit, end) => {
    const run = unit.repeat(MAX_LINE_BYTES - 4); // after the first line's 8 bytes, two chunks of 64 KiB hold the run up to `end`
    const text = `8.8.8.8\n${run}${end} 1.1.1.1\n9.9.9.9\n`;
    for (const size of [MAX_LINE_BYTES, MAX_LINE_BYTES + 7, 1 << 20]) {
      expect(await grepRows(text, size), `chunks of ${size}`).toEqual({ code: 0, err: '', ips: ['8.8.8.8', '1.1.1.1', '9.9.9.9'] });
    }
  });

  // Before: each quad of this run was found when the line was read whole, one was lost where a piece ended inside it.
  it('the addresses a run would hold are dropped with it, read whole or in pieces', async () => {
    const text = `${'1.2.3.4..'.repeat(Math.ceil((MAX_LINE_BYTES + 1) / 9))}\n8.8.8.8\n`;
    for (const size of [MAX_LINE_BYTES + 7, 1 << 20]) expect((await grepRows(text, size)).ips, `chunks of ${size}`).toEqual(['8.8.8.8']);
  });

  // Before: a piece began after the `/` of `Chrome/`, so the product version in it was taken as an address.
  it('a cut between pieces changes nothing: `word/` before a dotted quad is still seen', async () => {
    const text = `${'x'.repeat(MAX_LINE_BYTES - 6)} Chrome/120.0.0.0 from 203.0.113.7 ${'y'.repeat(100)}\n`;
    for (const size of [MAX_LINE_BYTES, MAX_LINE_BYTES + 7, MAX_LINE_BYTES + 10, 1 << 20]) {
      expect((await grepRows(text, size)).ips, `chunks of ${size}`).toEqual(['203.0.113.7']);
    }
  });

  it('a blank line longer than 64 KiB gives no row, as a short one (no error row with --grep)', async () => {
    const text = `${' \t'.repeat(MAX_LINE_BYTES)}\n8.8.8.8\n`;
    for (const size of [MAX_LINE_BYTES, 1 << 20]) expect(await grepRows(text, size)).toEqual({ code: 0, err: '', ips: ['8.8.8.8'] });
  });

  it('property: a text read in any pieces gives exactly the addresses of its lines read whole, holding no more than a piece past the limit', async () => {
    const run = fc.stringMatching(/^[0-9a-f:.]{1,90}$/);
    const token = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      run,
      fc.constantFrom(' ', '/', '//', 'Chrome/', 'x', '_', '-', '[', ']:443', ':', '..', '\t', 'é', ' 1.2.3.4.5 ', 'a:'.repeat(30)),
    );
    const line = fc.array(token, { maxLength: 14 }).map((t) => t.join(''));
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.integer({ min: 8, max: 48 }),
        fc.array(fc.integer({ min: 1, max: 120 }), { minLength: 1, maxLength: 8 }),
        async (lines, lastEnds, limit, sizes) => {
          const text = lines.join('\n') + (lastEnds ? '\n' : '');
          const bytes = Buffer.from(text, 'latin1');
          const chunks: Buffer[] = [];
          for (let at = 0, i = 0; at < bytes.length; i++) {
            const n = sizes[i % sizes.length]!;
            chunks.push(bytes.subarray(at, at + n));
            at += n;
          }
          const map = grepLines(limit);
          let longest = 0;
          const watched: LineMap = { ...map, map: (l) => ((longest = Math.max(longest, l.length)), map.map(l)) };
          const out: Buffer[] = [];
          for await (const c of mapLines(Readable.from(chunks), watched, () => false, limit)) out.push(Buffer.from(c));
          const found = Buffer.concat(out).toString('latin1').split('\n').filter((l) => l !== '');
          expect(found).toEqual(lines.flatMap((l) => extractAddresses(l, limit)));
          // A line's tail after its chunk's last LF (up to a chunk), or a run of up to limit + 2, then the next chunk.
          expect(longest).toBeLessThanOrEqual(limit + 2 + 2 * Math.max(...sizes));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('mapLines', () => {
  /** A map that doubles lines holding "x" and drops lines holding "-". */
  const doubler: LineMap = {
    marker: 120,
    longLines: 'pass',
    map(line) {
      const t = Buffer.from(line).toString('latin1');
      return t.includes('-') ? '' : `${t}\n${t}\n`;
    },
  };
  const oracle = (text: string): string =>
    text
      .split('\n')
      .map((l, i, all) => (i === all.length - 1 && l === '' ? null : l))
      .filter((l): l is string => l !== null)
      .map((l) => (l.includes('x') ? (l.includes('-') ? '' : `${l}\n${l}\n`) : `${l}\n`))
      .join('');

  it('property: applies the map to every line, whatever the chunk boundaries', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.stringMatching(/^[ax\-. ]{0,8}$/), { maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 10 }),
        async (lines, cuts) => {
          const text = `${lines.join('\n')}\n`;
          const bytes = Buffer.from(text);
          const chunks: Buffer[] = [];
          for (let at = 0, i = 0; at < bytes.length; i++) {
            const n = cuts[i % cuts.length]!;
            chunks.push(bytes.subarray(at, at + n));
            at += n;
          }
          const out: Buffer[] = [];
          for await (const c of mapLines(Readable.from(chunks), doubler, () => false)) out.push(Buffer.from(c));
          expect(Buffer.concat(out).toString('latin1')).toBe(oracle(text));
        },
      ),
    );
  });
});
