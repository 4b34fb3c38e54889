/**
 * The signal set with nothing set: the base every fixture spreads its
 * changes over (`{ ...EMPTY_SIGNALS, is_tor: true }`). The bogon row of the
 * precedence rules (core's rules/classify.ts) with an ordinary connection.
 *
 * @module
 */
import { BOGON_SIGNALS, type SignalRow } from '@ipintel/core/writer';

export const EMPTY_SIGNALS: SignalRow = Object.freeze({ ...BOGON_SIGNALS, connection_type: 'isp', connection_evidence: 'inferred' });
