/**
 * The reliability suite's oracle for fuzzed addresses (node:net's isIP plus
 * the two documented policy differences) and its README writer.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { fuzzAddresses, judge } from './lib/fuzz.mjs';
import { table, updateReadme } from './lib/table.mjs';

const refused = { ip: 'x', error: { code: 'invalid_ip', message: 'not an address' } };

it('judges answers the way the parsing policy says', () => {
  expect(judge('8.8.8.8', { ip: '8.8.8.8' })).toBe('');
  expect(judge('8.8.8.8', { ip: '8.8.4.4' })).toMatch(/^wrong/);
  expect(judge('01.2.3.4', refused)).toBe('');
  expect(judge('1.2.3.4', refused)).toMatch(/^wrong: a valid address refused/);
  expect(judge('nope', { ip: '1.2.3.4' })).toMatch(/^wrong: an invalid string answered/);
  expect(judge('fe80::1%eth0', refused)).toBe(''); // zones are refused by policy
  expect(judge('::ffff:1.2.3.4', { ip: '1.2.3.4' })).toBe(''); // IPv4-mapped answered as IPv4
  expect(judge('2001:DB8:0:0::1', { ip: '2001:db8::1' })).toBe('');
  expect(judge('x', { ip: 'x', error: { code: 'boom' } })).toMatch(/^untyped/);
});

it('generates the same mix of strings for a seed, valid and not', () => {
  const a = [...fuzzAddresses(2000, 7)];
  expect([...fuzzAddresses(2000, 7)]).toEqual(a);
  const valid = a.filter((s) => judge(s, refused) !== '').length;
  expect(valid).toBeGreaterThan(400);
  expect(valid).toBeLessThan(1600);
});

it('writes the table between the README markers only', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reliability-readme-'));
  const readme = join(dir, 'README.md');
  writeFileSync(readme, 'before\n<!-- reliability:start -->\nold\n<!-- reliability:end -->\nafter\n');
  const text = table([{ phase: 'p', requests: 1234, problem: 0, status5xx: 0, crashes: 0, notes: 'n' }]);
  updateReadme(readme, text);
  const s = readFileSync(readme, 'utf8');
  expect(s).toBe(`before\n<!-- reliability:start -->\n${text}\n<!-- reliability:end -->\nafter\n`);
  expect(s).toContain('| p | 1,234 |');
  writeFileSync(readme, 'no markers');
  expect(() => updateReadme(readme, text)).toThrow(/reliability:start/);
  rmSync(dir, { recursive: true });
});
