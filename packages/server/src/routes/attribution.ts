/**
 * GET /attribution: the data sources of the snapshot being served, their
 * licences and links, as HTML for people or JSON for programs (by Accept).
 * Every result's `attribution` field links here; sources whose licence needs
 * attribution (DB-IP's CC BY 4.0, ...) are listed first and marked.
 *
 * @module
 */
import type { SnapshotInfo, SourceInfo } from '@ipintel/core';
import { json, type ApiResponse } from '../http/types.js';

/** Links for the licences the feeds use; others are shown as text. */
const LICENCE_LINKS: Readonly<Record<string, string>> = {
  'CC BY 4.0': 'https://creativecommons.org/licenses/by/4.0/',
  'CC-BY-4.0': 'https://creativecommons.org/licenses/by/4.0/',
  'CC BY-SA 4.0': 'https://creativecommons.org/licenses/by-sa/4.0/',
  'CC0 1.0': 'https://creativecommons.org/publicdomain/zero/1.0/',
  'CC0-1.0': 'https://creativecommons.org/publicdomain/zero/1.0/',
  'ODbL 1.0': 'https://opendatacommons.org/licenses/odbl/1-0/',
};

export interface AttributionEntry {
  readonly id: string;
  readonly publisher: string;
  readonly url: string;
  readonly licence: string;
  readonly licence_url: string | null;
  readonly attribution_required: boolean;
  readonly data_date: string | null;
}

/**
 * The link of a licence text that names one of LICENCE_LINKS: alone, or
 * followed by the attribution notice the feed asks for in brackets
 * (`CC BY 4.0 (IP Geolocation by DB-IP, https://db-ip.com)`, as the builder
 * writes DB-IP's). A licence named further on (`...; extracted by X (CC0)`)
 * is the licence of something else, and gets no link.
 */
export function licenceUrl(licence: string): string | null {
  const bracket = licence.indexOf(' (');
  const name = bracket < 0 ? licence : licence.slice(0, bracket);
  return Object.hasOwn(LICENCE_LINKS, name) ? LICENCE_LINKS[name]! : null;
}

function entry(s: SourceInfo): AttributionEntry {
  return {
    id: s.id,
    publisher: s.publisher,
    url: s.url,
    licence: s.licence,
    licence_url: licenceUrl(s.licence),
    attribution_required: s.attribution_required,
    data_date: s.data_date,
  };
}

/** Sources needing attribution first, then by id. */
export function attributionEntries(info: SnapshotInfo): AttributionEntry[] {
  return info.sources
    .map(entry)
    .sort((a, b) => Number(b.attribution_required) - Number(a.attribution_required) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Whether the client prefers JSON over HTML (q-values honoured; HTML on a tie or without Accept). */
export function prefersJson(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  let jsonQ = 0;
  let htmlQ = 0;
  for (const part of accept.toLowerCase().split(',')) {
    const [type = '', ...params] = part.split(';').map((x) => x.trim());
    const qp = params.find((p) => p.startsWith('q='));
    const q = qp === undefined ? 1 : Number(qp.slice(2)) || 0;
    if (type === 'application/json' || type === 'application/*') jsonQ = Math.max(jsonQ, q);
    if (type === 'text/html' || type === 'text/*') htmlQ = Math.max(htmlQ, q);
    if (type === '*/*') htmlQ = Math.max(htmlQ, q * 0.999);
  }
  return jsonQ > htmlQ;
}

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const safeHref = (u: string): string | null => (/^https?:\/\//i.test(u) ? esc(u) : null);

function row(e: AttributionEntry): string {
  const href = safeHref(e.url);
  const source = href === null ? esc(e.publisher) : `<a href="${href}">${esc(e.publisher)}</a>`;
  const lic = e.licence_url === null ? esc(e.licence) : `<a href="${esc(e.licence_url)}">${esc(e.licence)}</a>`;
  return `<tr><td>${source}</td><td><code>${esc(e.id)}</code></td><td>${lic}</td><td>${e.attribution_required ? 'yes' : 'no'}</td><td>${esc(e.data_date ?? '')}</td></tr>`;
}

/** The answer for GET /attribution. */
export function attributionResponse(info: SnapshotInfo, accept: string | undefined): ApiResponse {
  const entries = attributionEntries(info);
  if (prefersJson(accept)) {
    return json(200, { build_date: info.build_date, sources: entries }, { vary: 'Accept', 'cache-control': 'public, max-age=300' });
  }
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ipintel data attribution</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><h1>Data sources and attribution</h1>
<p>IP intelligence results are built from the public data sources below (snapshot built ${esc(info.build_date)}).
Sources marked "yes" require attribution under their licence.</p>
<table><thead><tr><th>Source</th><th>Id</th><th>Licence</th><th>Attribution required</th><th>Data date</th></tr></thead>
<tbody>
${entries.map(row).join('\n')}
</tbody></table></body></html>
`;
  return {
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8', vary: 'Accept', 'cache-control': 'public, max-age=300' },
    body: html,
  };
}
