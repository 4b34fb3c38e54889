/**
 * Evidence labels: the class of the source that decided each value, for true
 * and false values alike (PRODUCT.md sections 2 and 3). Only the label of
 * `connection_type` varies per address (provider-published range =
 * authoritative, ASN-derived list = inferred); the rest are fixed by the
 * source class, so the objects are shared constants.
 *
 * @module
 */
import type { Evidence, EvidenceLabel } from '../types.js';

function evidence(connection: EvidenceLabel): Evidence {
  return Object.freeze({
    connection_type: connection,
    tor: 'authoritative',
    vpn: 'inferred',
    proxy: 'beta',
    verified_bot: 'authoritative',
    relay: 'authoritative',
    routing: 'authoritative',
    allocation: 'authoritative',
    drop_listed: 'authoritative',
    recent_abuse: 'beta',
    public_resolver: 'authoritative',
  } as const);
}

const BY_LABEL: Readonly<Record<EvidenceLabel, Evidence>> = Object.freeze({
  authoritative: evidence('authoritative'),
  inferred: evidence('inferred'),
  beta: evidence('beta'),
});

/** The shared, frozen evidence object for a `connection_type` label. */
export function evidenceFor(connection: EvidenceLabel): Evidence {
  return BY_LABEL[connection];
}
