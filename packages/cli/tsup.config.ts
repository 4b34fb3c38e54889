import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { main: 'src/main.ts', 'batch-worker': 'src/batch/worker.ts' },
  format: ['esm'],
  dts: false,
  clean: true,
  sourcemap: true,
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
});
