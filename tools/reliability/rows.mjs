#!/usr/bin/env node
// The fast part of the reliability suite: which tests (run by `pnpm test`)
// reproduce each row of issue 11 and the guarantees that held. Each test was
// seen failing on the code before its fix. rows.test.ts checks that every
// test named here exists; README.md shows the table this module renders.
//
//   node tools/reliability/rows.mjs                  # prints the table
//   node tools/reliability/rows.mjs --update-readme  # writes it into README.md
import { fileURLToPath } from 'node:url';
import { replaceBetween } from './lib/table.mjs';

const S = 'packages/server/test';
const R = `${S}/reliability`;
const CLI = 'packages/cli/test';

/** Issue 11's rows: the defect and the tests (file, test title) that failed before its fix. */
export const ROWS = [
  { row: 1, defect: 'Redis stalled: requests answered 503 counted when it resumed', tests: [
    [`${R}/redis-stall.test.ts`, 'requests answered 503 during a stall are not counted when Redis resumes'],
    [`${R}/redis-stall.test.ts`, 'under load: every 200 counted, nothing else, across a stall'],
    [`${R}/redis-stall.test.ts`, 'a count Redis ran but whose reply came too late is undone'],
    [`${R}/redis-stall.test.ts`, 'counts Redis ran before the connection broke (replies lost) are undone once checked'],
  ] },
  { row: 2, defect: 'an `ips` element nested 5,000 deep: 500 and a stack trace', tests: [
    [`${R}/hostile-bodies.test.ts`, 'an ips element nested 5,000 (or 20,000) deep is an invalid element, not a 500'],
    [`${R}/hostile-bodies.test.ts`, 'any JSON value as an element or as the body answers 200 or 4xx, never 5xx'],
  ] },
  { row: 3, defect: 'bodies of refused requests read without bound', tests: [
    [`${R}/hostile-requests.test.ts`, '${what}: ${status} at once, the connection closed after reading little of a 64 MiB body'],
    [`${R}/hostile-requests.test.ts`, 'a slow body without a key is answered and closed at once, not held until it ends'],
    [`${R}/hostile-requests.test.ts`, 'Expect: 100-continue gets no 100 without a key, and a 100 then the answer with one'],
  ] },
  { row: 4, defect: 'the key in the access log when the query is percent-encoded', tests: [
    [`${R}/log-redaction.test.ts`, 'never keeps the secret part of a key, whatever is percent-encoded and wherever it is'],
    [`${R}/log-redaction.test.ts`, 'the access log of a request authenticated by ?%74oken= holds the key id, not the key'],
  ] },
  { row: 5, defect: 'no slow-client limits (Node defaults)', tests: [
    [`${R}/slow-clients.test.ts`, 'has safe defaults'],
    [`${R}/slow-clients.test.ts`, 'slow headers: 408 request_timeout, connection closed'],
    [`${R}/slow-clients.test.ts`, 'slow body with a valid key: 408 request_timeout, connection closed'],
    [`${R}/slow-clients.test.ts`, 'an idle connection that never sends a request is closed'],
    [`${CLI}/serve.test.ts`, 'maps the deployment and limit flags (issue 11 rows 5 and 17)'],
  ] },
  { row: 6, defect: '`checkBatch` / `check` threw untyped errors for hostile elements and options', tests: [
    ['packages/core/test/check.test.ts', 'gives every hostile element a typed invalid_ip error in place, with a message that cannot throw'],
    ['packages/core/test/check.test.ts', 'treats null and undefined options as none, and refuses a non-object with a typed invalid_input'],
  ] },
  { row: 7, defect: '`batch` answered lines padded with NUL, ESC, VT', tests: [
    [`${CLI}/batch.test.ts`, 'answers a line exactly when `ipintel check` answers it: only space, tab and CR are padding'],
  ] },
  { row: 8, defect: "node:http's own 400/431 without a problem+json body", tests: [
    [`${R}/slow-clients.test.ts`, 'a malformed request: 400 malformed_request'],
    [`${R}/slow-clients.test.ts`, 'headers over the size limit: 431 headers_too_large'],
    [`${R}/hostile-requests.test.ts`, 'CONNECT (a proxy tunnel) gets a 405 problem, not a silent close'],
  ] },
  { row: 9, defect: 'a key after the ~1,000th header silently dropped', tests: [
    [`${R}/hostile-requests.test.ts`, 'a key after the 1,000th header: 431, not missing_api_key'],
    [`${R}/hostile-requests.test.ts`, "embedded in a host server with node's default header cap, a request at the cap is refused"],
  ] },
  { row: 10, defect: 'SIGTERM under keep-alive load reset connections', tests: [
    [`${R}/drain.test.ts`, 'drains keep-alive clients on SIGTERM: every answer complete, no connection reset, exit 0'],
  ] },
  { row: 11, defect: '`?token=` authenticated on `/v1` and took a rate token', tests: [
    [`${R}/query-token.test.ts`, '?token= on /v1 routes answers 401 and takes no rate token; on /thirdparty it is the key'],
  ] },
  { row: 12, defect: 'an unknown key id slower than a known one (existence oracle)', tests: [
    [`${R}/key-oracle.test.ts`, 'an unknown id and a known id with a wrong secret cost the same store reads and hash comparisons (cached)'],
    [`${R}/key-oracle.test.ts`, 'and the same without a cache'],
  ] },
  { row: 13, defect: 'the store file created world-readable', tests: [
    [`${R}/store-file.test.ts`, 'creates the store file 0600 and the folders it creates 0700'],
  ] },
  { row: 14, defect: '`batch` on SIGINT to a pipe: a cut row, no closing `]`', tests: [
    [`${CLI}/process.test.ts`, 'on SIGINT to a pipe: complete rows, a closed JSON array, exit 130'],
    [`${CLI}/batch.test.ts`, 'on %s: finishes the complete lines read, drops a cut one, closes the JSON array, exits %i'],
  ] },
  { row: 15, defect: '`serve` held its log lines in an 8 KiB buffer', tests: [
    [`${R}/log-flush.test.ts`, 'writes the listening line and every request line while the process runs, and keeps them after kill -9'],
  ] },
  { row: 16, defect: 'the batch progress bar counted worker blocks as 0 bytes', tests: [
    [`${CLI}/batch.test.ts`, 'counts the bytes of every block in the progress bar, those done by workers too'],
  ] },
  { row: 17, defect: '`serve` without the per-second limit, CORS, trusted proxies', tests: [
    [`${CLI}/serve.test.ts`, 'the deployment flags reach the running server: no per-second limit, CORS, a trusted proxy, a header limit (issue 11 row 17)'],
    [`${R}/deployment-options.test.ts`, 'follows X-Forwarded-For only through trusted addresses (property)'],
    [`${R}/deployment-options.test.ts`, 'answers preflights from allowed origins with 204, without a key, counting nothing'],
  ] },
];

/** The guarantees that held, on a smaller scale than `pnpm reliability`. */
export const GUARANTEES = [
  { what: 'quota exact across 3 processes, SQLite and Redis', tests: [[`${S}/multiprocess.test.ts`, 'admit exactly the quota']] },
  { what: 'SQLite `kill -9` under load: nothing lost or counted twice', tests: [[`${R}/kill9.test.ts`, 'kill -9 mid-load loses no counted lookup and counts none twice']] },
  { what: 'Redis stopped and killed: 503, nothing counted, recovery', tests: [[`${S}/outage.test.ts`, 'fails closed while Redis is down (%s) and recovers when it returns']] },
  { what: 'hot reload through valid, truncated, flipped, non-atomic copies', tests: [[`${R}/reload-copies.test.ts`, 'serves through valid, truncated, bit-flipped and non-atomic replacements with no failed request']] },
  { what: 'slowloris beside normal clients', tests: [[`${R}/slow-clients.test.ts`, 'a normal client is served while slow clients hold connections']] },
  { what: 'hostile requests on raw sockets', tests: [[`${R}/hostile-requests.test.ts`, 'get a problem+json or a result, never a 5xx, and the server keeps serving']] },
];

const cell = (tests) => tests.map(([file, title]) => `\`${file.replace(/^packages\//, '')}\`: ${title.replaceAll('|', '\\|')}`).join('<br>');

/** The README table: one line per row of issue 11, then the guarantees. */
export function rowsTable() {
  const lines = ['| row | defect (issue 11) | tests (`pnpm test`) |', '|---:|---|---|'];
  for (const r of ROWS) lines.push(`| ${r.row} | ${r.defect} | ${cell(r.tests)} |`);
  for (const g of GUARANTEES) lines.push(`| held | ${g.what} | ${cell(g.tests)} |`);
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = rowsTable();
  if (process.argv.includes('--update-readme')) replaceBetween(fileURLToPath(new URL('../../README.md', import.meta.url)), 'reliability-rows', text);
  else process.stdout.write(`${text}\n`);
}
