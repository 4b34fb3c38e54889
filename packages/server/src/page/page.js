// The ipintel web page (served at `/` by `ipintel serve`): looks addresses up through the
// server's own API (POST v1/check/batch, once per result shape) and shows each result, its
// evidence labels and its place on an offline world map.
//
// Rules this file keeps (docs/api.md, The web page):
// - every text that came from the network is written with textContent or setAttribute,
//   never as HTML;
// - the API key travels only in the x-api-key header and is kept in sessionStorage (this tab);
// - every URL is relative, so the page works under a base path and needs no CORS.
// Plain browser JavaScript, no build step and no dependency.

const KEY_STORAGE = 'ipintel.key';
const SVG_NS = 'http://www.w3.org/2000/svg';

const $ = (id) => document.getElementById(id);

/** What the server told the page about itself: the caller's address, the demo quota, the batch size. */
let client = { ip: null, demo_quota: null, max_batch: 100, explain: false };

function setStatus(text, isError = false) {
  const s = $('status');
  s.textContent = text;
  s.className = isError ? 'error' : '';
}

/** Where a point lands on the map: the projection of the server's world-map.ts. */
const project = (lon, lat) => [lon + 180, 90 - lat];

async function loadMap() {
  const res = await fetch('page/world.json');
  if (!res.ok) return;
  const map = await res.json();
  const path = document.createElementNS(SVG_NS, 'path');
  path.setAttribute('d', map.d);
  path.setAttribute('class', 'country');
  $('land').replaceChildren(path);
}

async function loadClient() {
  const res = await fetch('page/client.json', { cache: 'no-store' });
  if (!res.ok) return;
  client = await res.json();
  $('max-batch').textContent = String(client.max_batch);
  $('my-address').disabled = client.ip === null;
  if (client.demo_quota !== null) {
    $('key-note').textContent = `(optional: without one, this server allows ${client.demo_quota} lookups per address per day; a key is kept in this tab only)`;
  }
}

/** The addresses typed or pasted: one per line, trimmed, blank lines and repeats dropped. */
function addressesOf(text) {
  const seen = new Set();
  for (const line of text.split(/\r?\n/)) {
    const ip = line.trim();
    if (ip !== '') seen.add(ip);
  }
  return [...seen];
}

function currentKey() {
  const key = $('key').value.trim();
  if (key === '') sessionStorage.removeItem(KEY_STORAGE);
  else sessionStorage.setItem(KEY_STORAGE, key);
  return key;
}

/** One batch call; resolves to the results, or throws an Error whose message is the problem's detail. */
async function batch(ips, format, key, explain = false) {
  const headers = { 'content-type': 'application/json' };
  if (key !== '') headers['x-api-key'] = key;
  const url = explain ? 'v1/check/batch?explain=1' : 'v1/check/batch';
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ ips, format }), cache: 'no-store' });
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    const detail = body !== null && typeof body.detail === 'string' ? body.detail : `the server answered ${res.status}`;
    const code = body !== null && typeof body.code === 'string' ? `${body.code}: ` : '';
    throw new Error(code + detail);
  }
  return { results: body.results, remaining: res.headers.get('ratelimit-remaining') };
}

/** The native results, with their explanations when the server can give them (client.json says). */
async function nativeExplained(ips, key) {
  return { ...(await batch(ips, 'native', key, client.explain === true)), explained: client.explain === true };
}

/** A field's value as one short cell. */
function cellOf(value) {
  if (value !== null && typeof value === 'object') return [value.country_code, value.region, value.city].filter((p) => p !== null && p !== '').join(', ') || '—';
  return value === null ? 'null' : String(value);
}

/** The explanation as a table: a row per field and per source its rule read (docs/api.md, "Explain"). */
function renderExplanation(table, explanation) {
  const tbody = table.querySelector('tbody');
  for (const f of explanation.fields) {
    const sources = f.sources.length === 0 ? [null] : f.sources;
    sources.forEach((src, i) => {
      const tr = document.createElement('tr');
      tr.setAttribute('data-field', f.field);
      const cells = [i === 0 ? f.field : '', i === 0 ? cellOf(f.value) : '', src?.source ?? '—', src?.matched ?? '—', src?.data_date ?? '—', i === 0 ? f.rule : ''];
      cells.forEach((text, c) => {
        const td = document.createElement(c === 0 ? 'th' : 'td');
        td.textContent = text;
        if (c === 5 && i === 0) td.title = f.rule_text;
        tr.append(td);
      });
      tbody.append(tr);
    });
  }
}

function row(tbody, label, value) {
  const tr = document.createElement('tr');
  const th = document.createElement('th');
  const td = document.createElement('td');
  th.textContent = label;
  td.textContent = value === null || value === undefined || value === '' ? '—' : String(value);
  tr.append(th, td);
  tbody.append(tr);
}

const yesNo = (b) => (b ? 'yes' : 'no');

function placeOf(geo) {
  const parts = [geo.city, geo.region, geo.country].filter((p) => p !== null && p !== '');
  const place = parts.length === 0 ? 'location unknown' : parts.join(', ');
  return geo.country_code === null ? place : `${place} (${geo.country_code})`;
}

/** The signals that are on, by name, with the operator when one is known. */
function signalsOn(s) {
  const on = [];
  if (s.is_datacenter) on.push(s.datacenter_provider === null ? 'datacenter' : `datacenter (${s.datacenter_provider})`);
  if (s.is_vpn) on.push(s.vpn_operator === null || s.vpn_operator === undefined ? 'VPN' : `VPN (${s.vpn_operator})`);
  if (s.is_proxy) on.push('proxy');
  if (s.is_tor) on.push('Tor exit');
  if (s.is_relay) on.push(s.relay_provider === null ? 'relay' : `relay (${s.relay_provider})`);
  if (s.is_public_resolver) on.push('public resolver');
  if (s.is_drop_listed) on.push('drop-listed');
  if (s.recent_abuse) on.push('recent abuse');
  if (s.is_verified_bot) on.push(s.verified_bot_name === null ? 'verified crawler' : `verified crawler (${s.verified_bot_name})`);
  if (s.is_anycast) on.push('anycast');
  return on.length === 0 ? 'none' : on.join(', ');
}

function addMarker(r, index) {
  const { latitude, longitude } = r.geo;
  if (typeof latitude !== 'number' || typeof longitude !== 'number') return;
  const [x, y] = project(longitude, latitude);
  const c = document.createElementNS(SVG_NS, 'circle');
  c.setAttribute('cx', String(x));
  c.setAttribute('cy', String(y));
  c.setAttribute('r', '2.5');
  c.setAttribute('class', 'marker');
  c.setAttribute('data-ip', r.ip);
  c.setAttribute('data-index', String(index));
  const title = document.createElementNS(SVG_NS, 'title');
  title.textContent = `${r.ip}: ${placeOf(r.geo)}`;
  c.append(title);
  $('markers').append(c);
}

function renderResult(native, thirdparty, index) {
  const node = $('result-template').content.firstElementChild.cloneNode(true);
  node.querySelector('.title').textContent = native.ip;
  node.setAttribute('data-ip', native.ip);
  node.querySelector('.native').textContent = JSON.stringify(native, null, 2);
  node.querySelector('.thirdparty').textContent = thirdparty === undefined ? '—' : JSON.stringify(thirdparty, null, 2);
  if (native.error !== undefined) {
    node.classList.add('failed');
    node.querySelector('.summary').textContent = `${native.error.code}: ${native.error.message}`;
    node.querySelector('.fields').remove();
    node.querySelector('.evidence-box').remove();
    node.querySelector('.explain-box').remove();
    return node;
  }
  const { geo, network: n, signals: s, risk } = native;
  const as = n.asn === 0 ? 'no ASN' : `AS${n.asn} ${n.as_org}`.trim();
  node.querySelector('.summary').textContent = `${placeOf(geo)} · ${as} · risk ${risk.score} (${risk.level})`;
  const fields = node.querySelector('.fields tbody');
  row(fields, 'Country', geo.country === null ? null : `${geo.country} (${geo.country_code})`);
  row(fields, 'Region, city', [geo.region, geo.city].filter((p) => p !== null).join(', '));
  row(fields, 'Coordinates', geo.latitude === null ? null : `${geo.latitude}, ${geo.longitude}`);
  row(fields, 'Time zone', geo.timezone);
  row(fields, 'ASN', n.asn === 0 ? null : `AS${n.asn}`);
  row(fields, 'Organisation', n.as_org);
  row(fields, 'Announced, bogon', `${yesNo(n.is_announced)}, ${yesNo(n.is_bogon)}`);
  row(fields, 'RPKI', n.rpki);
  row(fields, 'Allocated', n.allocation_date === null ? null : `${n.allocation_date} (${n.registration_country ?? 'country unknown'})`);
  row(fields, 'Connection type', s.connection_type);
  row(fields, 'Signals', signalsOn(s));
  row(fields, 'Risk', `${risk.score} (${risk.level})${risk.reasons.length === 0 ? '' : `: ${risk.reasons.join(', ')}`}`);
  const evidence = node.querySelector('.evidence tbody');
  for (const [signal, label] of Object.entries(native.evidence)) {
    row(evidence, signal, label);
    evidence.lastElementChild.lastElementChild.className = `label-${label}`;
  }
  if (native.explanation !== undefined) renderExplanation(node.querySelector('.explanation'), native.explanation);
  else node.querySelector('.explain-box').remove();
  addMarker(native, index);
  return node;
}

async function lookUp(ips) {
  if (ips.length === 0) return setStatus('Type or paste at least one address.', true);
  if (ips.length > client.max_batch) return setStatus(`At most ${client.max_batch} addresses at a time; this list has ${ips.length}.`, true);
  const key = currentKey();
  if (key === '' && client.demo_quota === null) return setStatus('This server needs an API key: type it above.', true);
  setStatus(`Looking up ${ips.length} address${ips.length === 1 ? '' : 'es'}…`);
  $('look-up').disabled = true;
  try {
    const native = await nativeExplained(ips, key);
    const third = await batch(ips, 'thirdparty', key);
    $('markers').replaceChildren();
    const nodes = native.results.map((r, i) => renderResult(r, third.results[i], i));
    $('results').replaceChildren(...nodes);
    const left = third.remaining === null ? '' : ` ${third.remaining} lookups left in this period.`;
    const why = native.explained ? '' : ' This server has no explain sidecar: no explanations.';
    setStatus(`${native.results.length} result${native.results.length === 1 ? '' : 's'} (each counts twice: native and thirdparty).${left}${why}`);
  } catch (e) {
    setStatus(e instanceof Error ? e.message : String(e), true);
  } finally {
    $('look-up').disabled = false;
  }
}

function start() {
  $('key').value = sessionStorage.getItem(KEY_STORAGE) ?? '';
  $('lookup').addEventListener('submit', (ev) => {
    ev.preventDefault();
    void lookUp(addressesOf($('ips').value));
  });
  $('my-address').addEventListener('click', () => {
    if (client.ip === null) return;
    $('ips').value = client.ip;
    void lookUp([client.ip]);
  });
  // data-ready: the map and the server's settings are in (what a test waits for).
  Promise.all([loadMap(), loadClient()]).then(
    () => document.body.setAttribute('data-ready', '1'),
    () => setStatus('Could not reach the server.', true),
  );
}

start();
