/**
 * Answers for requests node:http refuses before the API sees them (its
 * `clientError` event): a malformed request (400), headers over the size
 * limit (431), headers or a body that arrive too slowly (408); and CONNECT
 * (its `connect` event: a proxy tunnel, not served here, 405), which node
 * would drop without a word. Node's own answers have no body; these are
 * problem+json like every other error, then the connection is closed. Socket errors (a reset by the client) get no
 * answer. Logged as one line without a stack: the client erred, not the server.
 *
 * @module
 */
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { problem, PROBLEMS, type ProblemCode } from './problem.js';
import type { ApiResponse } from './types.js';

/** How long a refused connection may take to accept its answer before it is destroyed, ms. */
const ANSWER_GRACE_MS = 1000;

/** The problem for a node:http client error, or undefined for a socket error that gets no answer. */
export function clientErrorProblem(code: string | undefined): ProblemCode | undefined {
  if (code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  if (code !== undefined && code.startsWith('HPE_')) return 'malformed_request';
  return undefined;
}

const DETAILS: Partial<Record<ProblemCode, string>> = {
  headers_too_large: 'the request headers are larger than the server accepts',
  request_timeout: 'the request did not arrive in time; the connection is closed',
  malformed_request: 'the request is not valid HTTP/1.1',
};

/** A `clientError` listener for an http.Server. */
export function clientErrorHandler(logger: Logger, problemTypeBase: string): (err: Error & { code?: string; reason?: string }, socket: Duplex) => void {
  return (err, socket) => {
    const code = clientErrorProblem(err.code);
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent: boolean } })._httpMessage;
    if (code === undefined || !socket.writable || inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    const reason = code === 'malformed_request' && typeof err.reason === 'string' ? ` (${err.reason.slice(0, 80)})` : '';
    logger.info({ status: PROBLEMS[code][0], code, cause: err.code }, 'client error');
    answerAndClose(socket, problem(code, `${DETAILS[code]}${reason}`, { connection: 'close' }, problemTypeBase));
  };
}

/** A `connect` listener: CONNECT (a proxy tunnel) is not served; 405 and close. */
export function connectHandler(logger: Logger, problemTypeBase: string): (req: { url?: string }, socket: Duplex) => void {
  return (_req, socket) => {
    logger.info({ status: 405, code: 'method_not_allowed', cause: 'CONNECT' }, 'client error');
    answerAndClose(socket, problem('method_not_allowed', 'CONNECT is not served here', { connection: 'close', allow: 'GET, HEAD, POST' }, problemTypeBase));
  };
}

/**
 * Writes a problem straight to the socket and closes it (destroyed after ANSWER_GRACE_MS if the client does not read).
 * With a Date, as node:http gives its own answers: RFC 9110 (6.6.1) has an origin server with a
 * clock send one in every 4xx answer, and these are written past node:http, which would add it.
 */
function answerAndClose(socket: Duplex, res: ApiResponse): void {
  const head = Object.entries({ ...res.headers, date: new Date().toUTCString(), 'content-length': String(Buffer.byteLength(res.body)) })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${res.status} ${PROBLEMS[res.code as ProblemCode][1]}\r\n${head}\r\n${res.body}`);
  const t = setTimeout(() => socket.destroy(), ANSWER_GRACE_MS);
  t.unref();
  socket.once('close', () => clearTimeout(t));
}
