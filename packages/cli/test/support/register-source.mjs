// `node --import ./register-source.mjs packages/cli/src/main.ts ...`: runs the CLI from its sources (source-hooks.mjs).
import { register } from 'node:module';

register('./source-hooks.mjs', import.meta.url);
