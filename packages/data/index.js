// The world snapshot shipped in this package: @ipintel/core's open() finds it without a path.
import { fileURLToPath } from 'node:url';

/** Absolute path of the snapshot file in this package. */
export const snapshotPath = fileURLToPath(new URL('./world.ipintel', import.meta.url));
