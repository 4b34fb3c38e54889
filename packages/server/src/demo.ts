/**
 * The demo quota (AppOptions.demoQuota, `ipintel serve --demo-quota N`): with
 * it set, a lookup request that carries no key is served and counted as the
 * caller's address instead of being refused with missing_api_key, so the web
 * page (and curl) can be tried without a key.
 *
 * - The count is per client address (after trustProxy) per UTC day, with the
 *   free plan's per-second limit; an IPv6 client counts per /64, the block one
 *   host usually holds (it could otherwise take a new address per request).
 * - A request that presents a key, even a wrong one, is judged by its key:
 *   a bad key is never quietly served from the demo quota.
 * - The demo accounts (`demo:<address>`) cannot meet a key's account (the key
 *   id, which has no colon) in the store.
 *
 * @module
 */
import { isIP } from 'node:net';
import { DEFAULT_PLANS, type Plan } from './plans.js';

/** Who a keyless demo request counts as: its account, its plan and the id the access log shows. */
export interface DemoCaller {
  readonly account: string;
  readonly plan: Plan;
  readonly id: string;
}

/** Checks a demoQuota option; undefined (off) for undefined or 0. Throws TypeError for a bad value. */
export function demoPlan(quota: number | undefined): Plan | undefined {
  if (quota === undefined || quota === 0) return undefined;
  if (!Number.isSafeInteger(quota) || quota < 0) throw new TypeError(`demoQuota must be a whole number of lookups per day, got ${String(quota)}`);
  return { quota, period: 'day', ratePerSecond: DEFAULT_PLANS['free']!.ratePerSecond };
}

/** The /64 of an IPv6 address, as its first four groups; an IPv4 address as is. */
export function demoBucket(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  // An address with "::" has the missing groups as zeros between its two sides.
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** The demo caller of a keyless request from `address`, or undefined when the address is unknown. */
export function demoCaller(plan: Plan, address: string | undefined): DemoCaller | undefined {
  if (address === undefined || isIP(address) === 0) return undefined;
  const bucket = demoBucket(address);
  return { account: `demo:${bucket}`, plan, id: 'demo' };
}
