/**
 * The risk score: one weights table (PRODUCT.md section 4), one function.
 *
 *   score  = clamp(0, 100, sum of the weights of the reasons that fired)
 *   level  = low < 30 <= medium <= 59 < high
 *   reasons = exactly the reasons that fired, in table order
 *
 * A verified crawler adds no weight of its own; it (like a public resolver)
 * fires `benign_network_kind`, which subtracts 15.
 *
 * @module
 */
import type { Risk, RiskLevel, RiskReason, Signals } from '../types.js';

/** The weights table, in reason order. docs/scoring.md shows the same table. */
export const RISK_WEIGHTS: readonly { readonly reason: RiskReason; readonly weight: number; readonly fires: (s: Signals) => boolean }[] = [
  { reason: 'is_tor', weight: 45, fires: (s) => s.is_tor },
  { reason: 'is_proxy', weight: 40, fires: (s) => s.is_proxy },
  { reason: 'is_datacenter', weight: 35, fires: (s) => s.is_datacenter },
  { reason: 'is_vpn', weight: 30, fires: (s) => s.is_vpn },
  { reason: 'is_drop_listed', weight: 50, fires: (s) => s.is_drop_listed },
  { reason: 'recent_abuse', weight: 25, fires: (s) => s.recent_abuse },
  { reason: 'is_relay', weight: 10, fires: (s) => s.is_relay },
  { reason: 'benign_network_kind', weight: -15, fires: (s) => s.is_public_resolver || s.is_verified_bot },
];

export const MEDIUM_FROM = 30;
export const HIGH_FROM = 60;

export function riskLevel(score: number): RiskLevel {
  return score >= HIGH_FROM ? 'high' : score >= MEDIUM_FROM ? 'medium' : 'low';
}

/** Scores one set of signals. The returned object and its array are frozen. */
export function scoreSignals(s: Signals): Risk {
  const reasons: RiskReason[] = [];
  let sum = 0;
  for (const w of RISK_WEIGHTS) {
    if (w.fires(s)) {
      reasons.push(w.reason);
      sum += w.weight;
    }
  }
  const score = Math.min(100, Math.max(0, sum));
  return Object.freeze({ score, level: riskLevel(score), reasons: Object.freeze(reasons) });
}
