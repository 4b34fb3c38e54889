/**
 * The builder's error codes: the table in docs/feeds.md is the table in
 * src/errors.ts (code, class, meaning), and every class carries its code,
 * its feed and its cause.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AcquireError, BUILDER_ERROR_CODES, BuildError, DeclarationError, FeedError } from '../src/errors.js';

const doc = readFileSync(fileURLToPath(new URL('../../../docs/feeds.md', import.meta.url)), 'utf8');

/** Rows `| code | class | meaning |` of the "Error codes" section. */
function docTable(): [string, string, string][] {
  const section = doc.slice(doc.indexOf('## Error codes'), doc.indexOf('\n## ', doc.indexOf('## Error codes') + 1));
  return [...section.matchAll(/^\| `([a-z_]+)` \| (\w+) \| (.+?) \|$/gm)].map((m) => [m[1]!, m[2]!, m[3]!]);
}

describe('builder error codes', () => {
  it('docs/feeds.md lists exactly the codes of src/errors.ts, with the same class and meaning, in the same order', () => {
    const code = Object.entries(BUILDER_ERROR_CODES).map(([c, v]) => [c, v.class, v.meaning]);
    expect(docTable()).toEqual(code);
    expect(code.length).toBeGreaterThan(10);
  });

  it('every class carries its code, and feed and cause where it has them', () => {
    const cause = new Error('low level');
    const f = new FeedError('tor-exits', 'feed_format', 'not JSON', { cause });
    expect([f.name, f.code, f.feed, f.message, f.cause]).toEqual(['FeedError', 'feed_format', 'tor-exits', 'tor-exits: not JSON', cause]);
    const a = new AcquireError('aws', 'fetch_http', 'answered HTTP 500');
    expect([a.name, a.code, a.feed, a.message]).toEqual(['AcquireError', 'fetch_http', 'aws', 'aws: answered HTTP 500']);
    const b = new BuildError('source_shrunk', 'shrank', { cause });
    expect([b.name, b.code, b.cause]).toEqual(['BuildError', 'source_shrunk', cause]);
    const d = new DeclarationError('x', 'refresh', 'refresh is bad');
    expect([d.name, d.code, d.feed, d.field, d.message]).toEqual(['DeclarationError', 'declaration_invalid', 'x', 'refresh', 'feed declaration "x": refresh is bad']);
  });
});
