/**
 * Headless Chromium (the Debian package `chromium`) driven over the Chrome
 * DevTools Protocol: a browser process, one page per `open()`, `evaluate()`
 * to read or act on the page, `waitFor()` to poll a condition, and
 * `screenshot()`. The protocol's WebSocket goes through the `ws` package
 * (Node 20 has no WebSocket client); nothing else is needed.
 *
 * Errors the page meets (uncaught exceptions, console errors, CSP
 * violations) are kept in `problems`, so a test can assert there were none.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';

/** The chromium binary on PATH, or undefined. */
export function findChromium(): string | undefined {
  for (const name of ['chromium', 'chromium-browser']) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim() !== '') return r.stdout.trim();
  }
  return undefined;
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
}

export interface BrowserPage {
  /** Evaluates `expression` in the page and returns its (JSON) value; awaits promises. */
  evaluate<T>(expression: string): Promise<T>;
  /** Polls `expression` until it is truthy (every 50 ms, up to `timeoutMs`). */
  waitFor(expression: string, timeoutMs?: number): Promise<void>;
  /** A PNG of the page at its full height. */
  screenshot(): Promise<Buffer>;
  /** Uncaught exceptions, console errors and CSP reports seen so far. */
  readonly problems: string[];
}

export interface Browser {
  open(url: string): Promise<BrowserPage>;
  close(): Promise<void>;
}

/** Starts headless Chromium. Throws when it does not start within 20 s. */
export async function launchChromium(binary: string): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'ipintel-chromium-'));
  // --no-sandbox: CI and this machine run as root, where Chromium's sandbox refuses to start.
  const child: ChildProcess = spawn(
    binary,
    ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check', '--remote-debugging-port=0', `--user-data-dir=${profile}`, '--window-size=1100,1300', 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const wsUrl = await new Promise<string>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`chromium did not start in 20 s: ${err.slice(-500)}`)), 20_000);
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString('utf8');
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`chromium exited (${code}): ${err.slice(-500)}`));
    });
  });
  child.stderr!.resume();
  const socket = new WebSocket(wsUrl, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let nextId = 1;
  const pending = new Map<number, Pending>();
  const listeners = new Map<string, (method: string, params: any) => void>();
  socket.on('message', (data: Buffer) => {
    const msg = JSON.parse(data.toString('utf8')) as { id?: number; result?: unknown; error?: { message: string }; method?: string; params?: unknown; sessionId?: string };
    if (msg.id !== undefined) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error !== undefined) p?.reject(new Error(msg.error.message));
      else p?.resolve(msg.result);
    } else if (msg.method !== undefined && msg.sessionId !== undefined) {
      listeners.get(msg.sessionId)?.(msg.method, msg.params);
    }
  });
  const send = <T = any>(method: string, params: object = {}, sessionId?: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve, reject });
      socket.send(JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) }));
    });

  return {
    async open(url) {
      const { targetId } = await send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = await send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
      const problems: string[] = [];
      let loaded: (() => void) | undefined;
      listeners.set(sessionId, (method, params) => {
        if (method === 'Runtime.exceptionThrown') problems.push(`exception: ${params.exceptionDetails?.exception?.description ?? params.exceptionDetails?.text}`);
        if (method === 'Runtime.consoleAPICalled' && params.type === 'error') problems.push(`console.error: ${JSON.stringify(params.args?.map((a: any) => a.value ?? a.description))}`);
        if (method === 'Log.entryAdded' && (params.entry.level === 'error' || params.entry.source === 'security')) problems.push(`log: ${params.entry.source}: ${params.entry.text} ${params.entry.url ?? ''}`.trimEnd());
        if (method === 'Page.loadEventFired') loaded?.();
      });
      const s = <T = any>(m: string, p: object = {}): Promise<T> => send<T>(m, p, sessionId);
      await Promise.all([s('Page.enable'), s('Runtime.enable'), s('Log.enable')]);
      const load = new Promise<void>((r) => (loaded = r));
      await s('Page.navigate', { url });
      await load;
      const evaluate = async <T>(expression: string): Promise<T> => {
        const r = await s<{ result: { value?: T }; exceptionDetails?: { text: string; exception?: { description?: string } } }>('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
        if (r.exceptionDetails !== undefined) throw new Error(`in the page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
        return r.result.value as T;
      };
      return {
        problems,
        evaluate,
        async waitFor(expression, timeoutMs = 10_000) {
          const end = Date.now() + timeoutMs;
          while (!(await evaluate<boolean>(`Boolean(${expression})`))) {
            if (Date.now() > end) throw new Error(`timed out waiting for ${expression}`);
            await new Promise((r) => setTimeout(r, 50));
          }
        },
        async screenshot() {
          const { data } = await s<{ data: string }>('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true });
          return Buffer.from(data, 'base64');
        },
      };
    },
    async close() {
      socket.close();
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      // Chromium's helper processes may still be writing to the profile just after the browser
      // exits (ENOTEMPTY): retry, and leave a temp folder behind rather than fail a passed test.
      try {
        rmSync(profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
      } catch {
        // a leftover folder under the system temp dir is harmless
      }
    },
  };
}
