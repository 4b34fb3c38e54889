/**
 * The server fixture (fixtures.ts, variant a) with the addresses the
 * /thirdparty tests need besides 8.8.8.8 and the 10/8 bogon: a VPN exit whose
 * per-server list names its operator (23.144.160.67, a Mullvad relay in the
 * vendored feed, in an M247 datacenter: `privacy.service` names the datacenter,
 * as PRODUCT.md section 5 maps it, never the operator) and an anycast range
 * (1.1.1.0/24).
 */
import { encodeSnapshot, flattenPrefixes, type SnapshotModel } from '@ipintel/core/writer';
import { EMPTY_SIGNALS } from '@ipintel/testkit';
import { fixtureModel } from './fixtures.js';

export const VPN_EXIT = '23.144.160.67';
export const VPN_OPERATOR = 'Mullvad';
/** `privacy.service` of VPN_EXIT: its datacenter provider. */
export const VPN_EXIT_SERVICE = 'M247';
export const ANYCAST_IP = '1.1.1.1';
export const BOGON_IP = '10.0.0.1';

function model(): SnapshotModel {
  const base = fixtureModel('a');
  const se = { country: 'Sweden', country_code: 'SE', region: 'Stockholm', city: 'Stockholm', latitude: 59.3293, longitude: 18.0686, timezone: 'Europe/Stockholm' };
  return {
    ...base,
    geo: [...base.geo, se],
    networks: [
      ...base.networks,
      { asn: 9009, as_org: 'M247 Europe SRL', is_announced: true, is_bogon: false, rpki: 'unknown', allocation_date: '2010-01-01', registration_country: 'RO' },
      { asn: 13335, as_org: 'Cloudflare, Inc.', is_announced: true, is_bogon: false, rpki: 'unknown', allocation_date: '2011-01-01', registration_country: 'US' },
    ],
    signals: [
      ...base.signals,
      { ...EMPTY_SIGNALS, connection_type: 'datacenter', connection_evidence: 'authoritative', datacenter_provider: VPN_EXIT_SERVICE, is_vpn: true, vpn_operator: VPN_OPERATOR },
      { ...EMPTY_SIGNALS, connection_type: 'datacenter', connection_evidence: 'authoritative', datacenter_provider: 'Cloudflare', is_anycast: true, is_public_resolver: true },
    ],
    leaves: [...base.leaves, { geo: 2, net: 3, sig: 2 }, { geo: 0, net: 4, sig: 3 }],
    v4: flattenPrefixes(4, [
      { start: 0x01010100n, length: 24, value: 4 },
      { start: 0x08080800n, length: 24, value: 1 },
      { start: 0x0a000000n, length: 8, value: 2 },
      { start: 0x1790a043n, length: 32, value: 3 },
    ], 0),
  };
}

let bytes: Uint8Array | undefined;

/** The snapshot bytes (encoded once per process). */
export function thirdpartyFixtureBytes(): Uint8Array {
  return (bytes ??= encodeSnapshot(model()));
}
