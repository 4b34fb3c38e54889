/**
 * The compatibility shape (`format: "thirdparty"`), derived from a native
 * result by this one function (spec 2.7, PRODUCT.md section 5).
 *
 * Fields whose native value is null are omitted, as the provider whose layout
 * this is omits what it does not know; `org` is omitted when there is no ASN.
 * `bogon` and `anycast` appear only when true, as in that layout.
 * `privacy.service` is the relay provider, else the datacenter provider, else
 * "" (PRODUCT.md section 5, the spec's mapping). The VPN operator is not in
 * it: the spec maps only those two fields, and a client written against the
 * spec reads a VPN exit in a hosting range as that host's; the native result
 * names the operator in `signals.vpn_operator`.
 *
 * @module
 */
import type { CheckResult, ThirdPartyResult } from '../types.js';

export function toThirdParty(r: CheckResult): ThirdPartyResult {
  const g = r.geo;
  const s = r.signals;
  // Built key by key so the JSON keeps the layout's field order.
  const out: Record<string, unknown> = { ip: r.ip };
  if (g.city !== null) out.city = g.city;
  if (g.region !== null) out.region = g.region;
  if (g.country_code !== null) out.country = g.country_code;
  if (g.latitude !== null && g.longitude !== null) out.loc = `${g.latitude},${g.longitude}`;
  if (r.network.asn !== 0) out.org = `AS${r.network.asn} ${r.network.as_org}`.trimEnd();
  if (g.timezone !== null) out.timezone = g.timezone;
  if (r.network.is_bogon) out.bogon = true;
  if (s.is_anycast) out.anycast = true;
  out.privacy = {
    vpn: s.is_vpn,
    proxy: s.is_proxy,
    tor: s.is_tor,
    relay: s.is_relay,
    hosting: s.connection_type === 'datacenter',
    service: s.relay_provider ?? s.datacenter_provider ?? '',
  };
  return out as unknown as ThirdPartyResult;
}
