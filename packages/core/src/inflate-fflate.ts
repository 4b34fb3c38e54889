/**
 * The portable inflater: fflate's, for runtimes without Node's zlib. Only
 * the portable entry imports it, so that a Node process (which inflates
 * with native zlib, `nodeInflate`) does not load fflate: evaluating it took
 * ~12 ms of every `import('@ipintel/core')` (docs/design.md, "Sixth round").
 *
 * @module
 */
import { inflateSync } from 'fflate';
import type { Inflate } from './snapshot/decode.js';

/**
 * One byte more room than the column: fflate stops at the end of the buffer
 * it is given, so a stream longer than the column comes back one byte too
 * long (and is refused as such) rather than cut to the column's size.
 */
export const fflateInflate: Inflate = (stored, rawSize) => inflateSync(stored, { out: new Uint8Array(rawSize + 1) });
