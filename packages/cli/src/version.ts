/**
 * The CLI's version, read from its package.json at build time (the bundler
 * inlines it), so `ipintel --version` cannot drift from the published one.
 *
 * @module
 */
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;
