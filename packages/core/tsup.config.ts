import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', portable: 'src/portable.ts', writer: 'src/writer.ts', internal: 'src/internal.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  treeshake: true,
});
