// `pnpm feeds:full`: the full-size checks of the feeds the repository may not carry
// (packages/*/test/**/*.full.ts), read from the team's collection (IPINTEL_FEEDS, else
// ../shared/feeds). Not part of `pnpm test`: a fresh clone has no collection, and this suite
// fails rather than skips without one.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({ ...base, test: { ...base.test, include: ['packages/*/test/**/*.full.ts'] } });
