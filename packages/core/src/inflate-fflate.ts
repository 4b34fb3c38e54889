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
 * One byte more room than the column: fflate writes nothing past the end of
 * the buffer it is given, so a stream longer than the column comes back one
 * byte too long (and is refused as such) rather than cut to the column's
 * size. It still decodes the rest of the stream, though: such a stream costs
 * the portable load its time (~2.4 s for 512 MB), not its memory.
 */
export const fflateInflate: Inflate = (stored, rawSize) => inflateSync(stored, { out: new Uint8Array(rawSize + 1) });
