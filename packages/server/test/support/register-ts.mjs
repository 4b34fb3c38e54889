// `node --import ./register-ts.mjs script.ts`: runs TypeScript sources (the module hooks the CLI's
// tests use too: packages/testkit/hooks/ts-source-hooks.mjs).
import { register } from 'node:module';

register('../../../testkit/hooks/ts-source-hooks.mjs', import.meta.url);
