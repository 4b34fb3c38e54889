import { defineConfig } from 'tsup';

// Built so that plain-JS tools (tools/*.mjs) can import it; TypeScript users
// (the packages' tests) read the sources through the "types" condition and
// vitest's alias. No .d.ts: nothing outside the workspace consumes it.
export default defineConfig({
  entry: { index: 'src/index.ts', random: 'src/random.ts' },
  format: ['esm'],
  dts: false,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
