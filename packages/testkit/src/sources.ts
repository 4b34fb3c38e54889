/**
 * A snapshot source row for fixtures: the fields every row has, with
 * placeholder publisher, URL and licence, and the data date and refresh
 * interval a test cares about.
 *
 * @module
 */
import type { SourceInfo } from '@ipintel/core';

/** A source row `id` dated `data_date`, with `refresh` when given (absent: a row written before the field). */
export function sourceRow(id: string, data_date: string | null, refresh?: string, entries = 1): SourceInfo {
  return {
    id,
    publisher: 'p',
    url: 'https://p.test',
    licence: 'l',
    attribution_required: false,
    data_date,
    entries,
    ...(refresh !== undefined ? { refresh } : {}),
  };
}
