/**
 * csvCell (@ipintel/core/internal), the cell rule of every CSV ipintel
 * writes: RFC 4180 quoting, null and '' told apart, lists joined with `;`;
 * property: a strict RFC 4180 reading of the cell gives the text back.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell } from '../src/internal.js';

/** Reads one cell back as RFC 4180 says: quoted (quotes doubled) or bare. */
function readCell(cell: string): string {
  if (!cell.startsWith('"')) {
    expect(cell).not.toMatch(/[",\r\n]/);
    return cell;
  }
  expect(cell.endsWith('"') && cell.length >= 2).toBe(true);
  const inner = cell.slice(1, -1);
  expect(inner.replaceAll('""', '')).not.toContain('"');
  return inner.replaceAll('""', '"');
}

describe('csvCell', () => {
  it('null is an empty cell, an empty text is "", values keep their JSON text', () => {
    expect([null, undefined, '', 'US', 15169, -122.0775, true, false].map(csvCell)).toEqual(['', '', '""', 'US', '15169', '-122.0775', 'true', 'false']);
    expect(csvCell(['is_datacenter', 'benign_network_kind'])).toBe('is_datacenter;benign_network_kind');
    expect(csvCell([])).toBe('""');
    expect(csvCell('Acme, "the" cloud')).toBe('"Acme, ""the"" cloud"');
    expect(csvCell('Line one\nLine two')).toBe('"Line one\nLine two"');
  });

  it('property: any text reads back as itself, and only the empty text is ""', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const cell = csvCell(s);
        expect(readCell(cell)).toBe(s);
        expect(cell === '').toBe(false);
      }),
      { seed: 42, numRuns: 500 },
    );
  });
});
