/**
 * The result helpers as the package exports them (`toThirdParty`,
 * `scoreSignals`, `riskLevel`, `evidenceFor`): each checks the fields it
 * reads and gives `IpIntelError` `invalid_input` for a value of the wrong
 * kind. The functions they wrap are called by the snapshot's own code with
 * values it made, and stay unchecked there; called by an application with
 * anything, they threw a bare TypeError (`toThirdParty(null)`) or answered
 * wrongly: `riskLevel(NaN)` was `'low'`, a string `'yes'` fired a risk
 * reason, and `evidenceFor('bogus')` answered with that label (keeping a
 * table entry for every such label it was given).
 *
 * @module
 */
import { IpIntelError, quoteInput } from '../errors.js';
import type { CheckResult, Evidence, EvidenceLabel, Risk, RiskLevel, Signals, ThirdPartyResult } from '../types.js';
import { evidenceFor as evidenceOf } from './evidence.js';
import { riskLevel as levelOf, scoreSignals as scoreOf } from './score.js';
import { toThirdParty as thirdPartyOf } from './thirdparty.js';

type Kind = 'boolean' | 'string' | 'string|null' | 'number|null' | 'asn';

const FITS: Readonly<Record<Kind, (v: unknown) => boolean>> = {
  boolean: (v) => typeof v === 'boolean',
  string: (v) => typeof v === 'string',
  'string|null': (v) => v === null || typeof v === 'string',
  'number|null': (v) => v === null || (typeof v === 'number' && Number.isFinite(v)),
  asn: (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0,
};

const NAMES: Readonly<Record<Kind, string>> = {
  boolean: 'a boolean',
  string: 'a string',
  'string|null': 'a string or null',
  'number|null': 'a finite number or null',
  asn: 'an ASN (a whole number, 0 for none)',
};

/** The signals `scoreSignals` reads (RISK_WEIGHTS' fields), each a boolean. */
const SCORED: Readonly<Record<string, Kind>> = Object.fromEntries(
  ['is_tor', 'is_proxy', 'is_datacenter', 'is_vpn', 'is_drop_listed', 'recent_abuse', 'is_relay', 'is_public_resolver', 'is_verified_bot'].map((f) => [f, 'boolean' as const]),
);

/** What `toThirdParty` reads of a native result, by part. */
const MAPPED: Readonly<Record<'geo' | 'network' | 'signals', Readonly<Record<string, Kind>>>> = {
  geo: { city: 'string|null', region: 'string|null', country_code: 'string|null', latitude: 'number|null', longitude: 'number|null', timezone: 'string|null' },
  network: { asn: 'asn', as_org: 'string', is_bogon: 'boolean' },
  signals: {
    is_anycast: 'boolean',
    is_vpn: 'boolean',
    is_proxy: 'boolean',
    is_tor: 'boolean',
    is_relay: 'boolean',
    connection_type: 'string',
    relay_provider: 'string|null',
    datacenter_provider: 'string|null',
  },
};

const LABELS: ReadonlySet<unknown> = new Set<EvidenceLabel>(['authoritative', 'inferred', 'beta', 'unavailable']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

function invalid(fn: string, what: string, expected: string, got: unknown): IpIntelError {
  const shown = typeof got === 'number' ? String(got) : quoteInput(got); // NaN, -1: the number says what is wrong
  return new IpIntelError('invalid_input', `${fn} expects ${what} to be ${expected}, got ${shown}`);
}

/** Throws invalid_input unless `part` is an object whose `fields` have their kinds; `where` names it (`result.geo`). */
function checkFields(fn: string, where: string, part: unknown, fields: Readonly<Record<string, Kind>>): void {
  if (!isObject(part)) throw invalid(fn, where, 'an object', part);
  for (const name in fields) {
    const kind = fields[name]!;
    if (!FITS[kind](part[name])) throw invalid(fn, `${where}.${name}`, NAMES[kind], part[name]);
  }
}

/** The compatibility shape of a native result (`check(ip)`'s); `invalid_input` for anything else. */
export function toThirdParty(result: CheckResult): ThirdPartyResult {
  const fn = 'toThirdParty';
  if (!isObject(result)) throw invalid(fn, 'its argument', 'a native result (an object)', result);
  if (typeof result['ip'] !== 'string') throw invalid(fn, 'result.ip', 'a string', result['ip']);
  for (const part of ['geo', 'network', 'signals'] as const) checkFields(fn, `result.${part}`, result[part], MAPPED[part]);
  return thirdPartyOf(result);
}

/** The risk of a set of signals; `invalid_input` unless every signal the weights read is a boolean. */
export function scoreSignals(signals: Signals): Risk {
  checkFields('scoreSignals', 'signals', signals, SCORED);
  return scoreOf(signals);
}

/** The level of a score from 0 to 100; `invalid_input` for anything else (NaN was `'low'`). */
export function riskLevel(score: number): RiskLevel {
  if (typeof score !== 'number' || !(score >= 0 && score <= 100)) throw invalid('riskLevel', 'score', 'a number from 0 to 100', score);
  return levelOf(score);
}

/** The evidence labels of a snapshot with a source for every key; `invalid_input` for a label that is none. */
export function evidenceFor(connection: EvidenceLabel, routing: 'authoritative' | 'inferred' = 'authoritative'): Evidence {
  if (!LABELS.has(connection)) throw invalid('evidenceFor', 'connection', 'an evidence label (authoritative, inferred, beta, unavailable)', connection);
  if (routing !== 'authoritative' && routing !== 'inferred') throw invalid('evidenceFor', 'routing', '"authoritative" or "inferred"', routing);
  return evidenceOf(connection, routing);
}
