/**
 * Raw HTTP/1.1 over a TCP socket, for the tests and tools that must send what
 * no HTTP client would: slow or partial headers and bodies, malformed
 * requests, thousands of headers, bodies that never end.
 *
 * @module
 */
import { connect, type Socket } from 'node:net';

export interface Exchange {
  /** Everything the server sent, as Latin-1 text. */
  readonly data: string;
  /** The server closed (or reset) the connection before the script was done. */
  readonly closedEarly: boolean;
  /** The socket error that ended the connection, if any (ECONNRESET, EPIPE). */
  readonly error: string | undefined;
  /** The connection was still open after `limitMs` (then this side closed it). */
  readonly timedOut: boolean;
  /** From connecting to the close, ms. */
  readonly ms: number;
}

/**
 * Connects to 127.0.0.1:`port`, runs `script` (which writes, and may wait),
 * and collects what the server sends until it ends its side of the
 * connection (then the client closes too, as HTTP clients do) or closes it.
 * After the script, the client half-closes and waits up to `limitMs`.
 */
export function exchange(port: number, script: (s: Socket, closed: () => boolean) => void | Promise<void>, limitMs = 15_000): Promise<Exchange> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    const t0 = performance.now();
    let data = '';
    let error: string | undefined;
    let closed = false;
    let scriptDone = false;
    let closedEarly = false;
    let gaveUp = false;
    const timer = setTimeout(() => {
      gaveUp = true;
      s.destroy();
    }, limitMs);
    s.setEncoding('latin1');
    s.on('data', (d: string) => (data += d));
    s.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    s.on('end', () => s.destroy());
    s.on('close', () => {
      closed = true;
      closedEarly = !scriptDone && !gaveUp;
      clearTimeout(timer);
      resolve({ data, closedEarly, error, timedOut: gaveUp, ms: performance.now() - t0 });
    });
    const run = async (): Promise<void> => {
      try {
        await script(s, () => closed);
      } catch {
        // a write after the server closed: the result says so
      }
      scriptDone = true;
      if (!closed) s.end();
    };
    s.on('connect', () => void run());
  });
}

/** Writes `text` in pieces of `size` bytes, `gapMs` apart, while the connection is open. */
export async function dribble(s: Socket, closed: () => boolean, text: string | Buffer, size: number, gapMs: number): Promise<void> {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'latin1') : text;
  for (let at = 0; at < bytes.length && !closed(); at += size) {
    s.write(bytes.subarray(at, at + size));
    await new Promise((r) => setTimeout(r, gapMs));
  }
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** The first response in `data` (Content-Length framed), or undefined when there is none. */
export function firstResponse(data: string): RawResponse | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = data.slice(0, end).split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (m === null) return undefined;
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  return { status: Number(m[1]), headers, body: data.slice(end + 4, end + 4 + length) };
}
