/**
 * Finding a feed's real file in the page its download URL serves (an HTML
 * download page, a directory listing): the links of a page, and a locator
 * that picks the newest dated link matching a pattern.
 *
 * @module
 */
import type { Locator } from '../declare.js';

/** Every `href` target of an HTML page (or directory listing), resolved against the page's URL, in page order. */
export function htmlLinks(html: string, base: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))/gi)) {
    const raw = (m[1] ?? m[2] ?? m[3] ?? '').replaceAll('&amp;', '&').trim();
    if (raw === '' || raw.startsWith('#') || /^(?:javascript|mailto):/i.test(raw)) continue;
    try {
      out.push(new URL(raw, base).href);
    } catch {
      // not a URL: not a candidate
    }
  }
  return out;
}

/**
 * A locator for a page that links to dated copies of a file (Azure's
 * download page links `ServiceTags_Public_20251103.json`): the link whose
 * path matches `pattern` with the greatest first capture group (a
 * `YYYYMMDD` date compares as text). Links are matched on their path, so a
 * mirror or a test server on another host is found the same way.
 *
 * @throws Error naming `what` when the page links no such file.
 * @example
 * newestLink(/ServiceTags_Public_(\d{8})\.json$/, 'the Azure service tags JSON')
 */
export function newestLink(pattern: RegExp, what: string): Locator {
  return (page) => {
    const html = new TextDecoder('utf-8').decode(page.body);
    let best: { url: string; key: string } | null = null;
    for (const url of htmlLinks(html, page.url)) {
      const m = pattern.exec(new URL(url).pathname);
      if (!m) continue;
      const key = m[1] ?? '';
      if (best === null || key > best.key) best = { url, key };
    }
    if (best === null) throw new Error(`no link to ${what} in the page (${page.contentType ?? 'no content type'})`);
    return best.url;
  };
}
