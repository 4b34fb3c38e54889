#!/usr/bin/env node
// Copies tools/bench/results.md into the README between the bench markers,
// so the README's numbers are always the benchmark's own output.
import { readFileSync } from 'node:fs';
import { writeReadmeSection } from '../readme-section.mjs';

const results = readFileSync(new URL('./results.md', import.meta.url), 'utf8')
  .replace(/^# Benchmarks\n+/, '')
  .replace(/^## /gm, '#### ');
writeReadmeSection('bench', results);
console.log('README performance section updated from tools/bench/results.md');
