#!/usr/bin/env node
// Writes the quality report of a snapshot into the README's accuracy section
// (between the quality markers), so its figures are the report's own output.
//   node tools/quality-readme.mjs [--snapshot PATH]     default .cache/world.ipintel (pnpm world)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeReadmeSection } from './readme-section.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { snapshot: { type: 'string', default: `${root}.cache/world.ipintel` } } });
if (!existsSync(values.snapshot)) {
  console.error(`no snapshot at ${values.snapshot}: run \`pnpm world\` first`);
  process.exit(2);
}
const r = spawnSync(process.execPath, [`${root}packages/cli/dist/main.js`, 'info', '--snapshot', values.snapshot, '--quality', '--no-counts'], { encoding: 'utf8' });
if (r.status !== 0) {
  console.error(r.stderr);
  process.exit(1);
}
const report = r.stdout.slice(r.stdout.indexOf('Quality ('));
const built = /Built +(\S+)/.exec(r.stdout)?.[1] ?? '?';
const block = `\`ipintel info --quality\` of the world snapshot built ${built} (\`pnpm world\`, then \`node tools/quality-readme.mjs\`):\n\n\`\`\`\n${report.trimEnd()}\n\`\`\``;
writeReadmeSection('quality', block);
console.log('README accuracy section updated from the quality report');
