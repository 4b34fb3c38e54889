// `node --import ./signal-at-write.mjs ...` with IPINTEL_TEST_SIGNAL=SIGINT|SIGTERM: the process sends
// itself that signal once, mid-write: after the first bytes are written into a temporary file
// (`*.tmp-<pid>`: the export's synchronous writes) or as one is opened (the build's FileHandle
// writes). A real signal at a known point of the write, without timers.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';

const signal = process.env.IPINTEL_TEST_SIGNAL;
const isTemporary = (path) => /\.tmp-\d+(-[0-9a-f]+)?$/.test(String(path));
let sent = false;
const send = () => {
  if (sent) return;
  sent = true;
  process.kill(process.pid, signal);
};

const writeSync = fs.writeSync;
fs.writeSync = function (fd, ...rest) {
  const n = writeSync.call(this, fd, ...rest);
  let path = '';
  try {
    path = fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    // not a file of ours
  }
  if (isTemporary(path)) send();
  return n;
};

const open = fsp.open;
fsp.open = async function (path, ...rest) {
  const handle = await open.call(this, path, ...rest);
  if (isTemporary(path)) send();
  return handle;
};

// The ESM bindings (import { open } from 'node:fs/promises', import * as fs from 'node:fs') follow.
syncBuiltinESMExports();
