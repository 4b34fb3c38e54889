import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (p: string): string => fileURLToPath(new URL(`./packages/${p}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the sources of sibling packages, so a stale dist never hides a change.
    alias: [
      { find: /^@ipintel\/core\/writer$/, replacement: src('core/src/writer.ts') },
      { find: /^@ipintel\/core\/internal$/, replacement: src('core/src/internal.ts') },
      { find: /^@ipintel\/core\/portable$/, replacement: src('core/src/portable.ts') },
      { find: /^@ipintel\/core$/, replacement: src('core/src/index.ts') },
      { find: /^@ipintel\/builder$/, replacement: src('builder/src/index.ts') },
      { find: /^@ipintel\/server$/, replacement: src('server/src/index.ts') },
      { find: /^@ipintel\/export$/, replacement: src('export/src/index.ts') },
      { find: /^@ipintel\/testkit\/random$/, replacement: src('testkit/src/random.ts') },
      { find: /^@ipintel\/testkit$/, replacement: src('testkit/src/index.ts') },
    ],
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'tools/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
