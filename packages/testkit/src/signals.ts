/**
 * The signal set with nothing set: the base every fixture spreads its
 * changes over (`{ ...EMPTY_SIGNALS, is_tor: true }`).
 *
 * @module
 */
import type { SignalRow } from '@ipintel/core/writer';

export const EMPTY_SIGNALS: SignalRow = Object.freeze({
  connection_type: 'isp',
  connection_evidence: 'inferred',
  datacenter_provider: null,
  relay_provider: null,
  is_relay: false,
  is_tor: false,
  is_vpn: false,
  vpn_operator: null,
  is_proxy: false,
  is_public_resolver: false,
  is_drop_listed: false,
  recent_abuse: false,
  is_verified_bot: false,
  verified_bot_name: null,
  is_anycast: false,
});
