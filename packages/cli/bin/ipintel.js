#!/usr/bin/env node
// The `ipintel` binary. A file of its own, present before anything is built,
// so that a package manager links it at install time (in a fresh checkout
// `dist/` does not exist yet when `pnpm install` runs); the command itself is
// dist/main.js.
import '../dist/main.js';
