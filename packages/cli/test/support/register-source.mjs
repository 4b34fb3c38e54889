// `node --import ./register-source.mjs packages/cli/src/main.ts ...`: runs the CLI from its sources
// (the module hooks the server's tests use too: packages/testkit/hooks/ts-source-hooks.mjs).
import { register } from 'node:module';

register('../../../testkit/hooks/ts-source-hooks.mjs', import.meta.url);
