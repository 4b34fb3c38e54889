// `node --import ./register-ts.mjs script.ts`: registers ts-hooks.mjs.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
