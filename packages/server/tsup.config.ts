import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // The web page's static files (routes/page.ts reads them from dist/page next to the bundle).
  onSuccess: async () => {
    cpSync('src/page', 'dist/page', { recursive: true, filter: (f) => !f.endsWith('.ts') });
  },
});
