#!/usr/bin/env node
// Copies tools/bench/results.md into the README between the bench markers,
// so the README's numbers are always the benchmark's own output.
import { readFileSync, writeFileSync } from 'node:fs';

const readme = new URL('../../README.md', import.meta.url);
const results = readFileSync(new URL('./results.md', import.meta.url), 'utf8')
  .replace(/^# Benchmarks\n+/, '')
  .replace(/^## /gm, '#### ');
const text = readFileSync(readme, 'utf8');
const start = '<!-- bench:start -->';
const end = '<!-- bench:end -->';
const a = text.indexOf(start);
const b = text.indexOf(end);
if (a < 0 || b < a) throw new Error('README has no bench markers');
writeFileSync(readme, `${text.slice(0, a + start.length)}\n${results}\n${text.slice(b)}`);
console.log('README performance section updated from tools/bench/results.md');
