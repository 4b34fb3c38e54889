/**
 * Finding a feed's real file in the page its download URL serves: the links
 * of an HTML page or a directory listing, and the locators built on them.
 *
 * - `newestLink`: a download page that links dated copies of a file
 *   (Microsoft's page for Azure), or an index whose one export is wanted
 *   (ThreatFox). Microsoft's page writes the file's URL in a script as well
 *   as (or instead of) an `href`, so every absolute URL in the page counts.
 * - `newestInListing`: a directory listing (Apache, nginx) whose newest file
 *   sits below dated sub-folders (CAIDA's `2026/08/`): the locator descends
 *   into the greatest numbered sub-folder until a listing links the file.
 *
 * @module
 */
import type { Locator } from '../declare.js';

function resolved(raw: string, base: string): string | null {
  try {
    return new URL(raw, base).href;
  } catch {
    return null; // not a URL: not a candidate
  }
}

/** Every `href` target of an HTML page (or directory listing), resolved against the page's URL, in page order. */
export function htmlLinks(html: string, base: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))/gi)) {
    const raw = (m[1] ?? m[2] ?? m[3] ?? '').replaceAll('&amp;', '&').trim();
    if (raw === '' || raw.startsWith('#') || /^(?:javascript|mailto):/i.test(raw)) continue;
    const url = resolved(raw, base);
    if (url !== null) out.push(url);
  }
  return out;
}

/**
 * The `href` targets plus every absolute http(s) URL written anywhere in the
 * page (scripts, JSON blobs; `\/` and `\u002F` escapes undone), in page
 * order, without repeats.
 */
export function pageUrls(html: string, base: string): string[] {
  const text = html.replace(/\\u002f/gi, '/').replaceAll('\\/', '/');
  const out = new Set(htmlLinks(text, base));
  for (const m of text.matchAll(/https?:\/\/[^\s"'<>()\\]+/gi)) {
    const url = resolved(m[0].replaceAll('&amp;', '&'), base);
    if (url !== null) out.add(url);
  }
  return [...out];
}

const decode = (body: Uint8Array): string => new TextDecoder('utf-8').decode(body);

/**
 * A locator for a page that links to dated copies of a file (Azure's
 * download page links `ServiceTags_Public_20251103.json`): the URL whose
 * path matches `pattern` with the greatest first capture group (a
 * `YYYYMMDD` date compares as text; without a group, the first match).
 * URLs are matched on their path, so a mirror or a test server on another
 * host is found the same way.
 *
 * @throws Error naming `what` when the page links no such file.
 * @example
 * newestLink(/ServiceTags_Public_(\d{8})\.json$/, 'ServiceTags_Public_<date>.json')
 */
export function newestLink(pattern: RegExp, what: string): Locator {
  return (page) => {
    let best: { url: string; key: string } | null = null;
    for (const url of pageUrls(decode(page.body), page.url)) {
      const m = pattern.exec(new URL(url).pathname);
      if (!m) continue;
      const key = m[1] ?? '';
      if (best === null || key > best.key) best = { url, key };
    }
    if (best === null) throw new Error(`no link to ${what} in the page (${page.contentType ?? 'no content type'})`);
    return best.url;
  };
}

/** A number-named sub-folder link (`2026/`, `08/`) of a listing: its number, else null. */
function folderNumber(url: string, listing: string): number | null {
  if (!url.startsWith(listing)) return null; // the parent, a sort link, another site
  const m = /^(\d{1,8})\/$/.exec(url.slice(listing.length));
  return m ? Number(m[1]) : null;
}

/**
 * A locator for a directory listing that holds dated files, possibly below
 * dated sub-folders (CAIDA: `routeviews-prefix2as/2026/08/routeviews-rv2-20260821-1200.pfx2as.gz`).
 * On each listing: the file link of that listing whose name matches
 * `pattern` with the greatest first group; else the number-named sub-folder
 * with the greatest number, which is read next. Only links below the
 * listing's own URL count (not its parent, its sort links or other sites).
 *
 * @throws Error naming `what` when a listing has neither.
 */
export function newestInListing(pattern: RegExp, what: string): Locator {
  return (page) => {
    const listing = page.url.endsWith('/') ? page.url.split('?')[0]! : `${page.url.split('?')[0]!}/`;
    const links = htmlLinks(decode(page.body), listing).map((u) => u.split(/[?#]/)[0]!);
    let file: { url: string; key: string } | null = null;
    let folder: { url: string; n: number } | null = null;
    for (const url of links) {
      if (!url.startsWith(listing)) continue;
      const name = url.slice(listing.length);
      const m = name.includes('/') ? null : pattern.exec(name);
      if (m) {
        const key = m[1] ?? '';
        if (file === null || key > file.key) file = { url, key };
        continue;
      }
      const n = folderNumber(url, listing);
      if (n !== null && (folder === null || n > folder.n)) folder = { url, n };
    }
    if (file !== null) return file.url;
    if (folder !== null) return { page: folder.url };
    throw new Error(`no link to ${what}, and no numbered sub-folder, in the listing (${page.contentType ?? 'no content type'})`);
  };
}
