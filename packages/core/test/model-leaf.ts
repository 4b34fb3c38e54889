/**
 * The model leaf a file leaf id answers for, in snapshots made by testkit's
 * `modelFromPrefixes` (model leaf i answers city `city-i`). The writer
 * numbers leaves its own way (most address space first, snapshot/order.ts),
 * so tests of the raw leaf functions map file ids back through this.
 */
import { leafCount, resultForLeaf } from '../src/internal.js';
import type { IpIntel } from '../src/portable.js';

/** The model leaf of file leaf `id`. */
export function modelLeaf(intel: IpIntel, id: number): number {
  const city = resultForLeaf(intel, id, '0.0.0.0', 4).geo.city;
  if (city === null || !city.startsWith('city-')) throw new Error(`leaf ${id} answers no modelFromPrefixes city`);
  return Number(city.slice(5));
}

/** The model leaf of every file leaf id, by id. */
export function modelLeaves(intel: IpIntel): number[] {
  return Array.from({ length: leafCount(intel) }, (_, id) => modelLeaf(intel, id));
}
