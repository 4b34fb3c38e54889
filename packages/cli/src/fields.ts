/**
 * Lists in flag values: the one rule of every `--fields` flag (`batch`,
 * `export`) and of comma-separated name lists such as `export --signals`.
 *
 * @module
 */
import { UsageError } from './errors.js';

/** The names of a comma-separated flag value, trimmed, empty items dropped. */
export function listItems(list: string): string[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * The one rule of every `--fields` flag (batch, export): a comma-separated
 * list of field names (`geo.country_code`) and group names (`geo`, all of
 * its fields), expanded against `all` in the order given, without
 * duplicates. An unknown name is a UsageError of `command` listing the valid
 * fields and groups (`context` is added after the name, e.g. the format).
 *
 * @example
 * expandFields(['ip', 'geo.city', 'geo.country'], 'geo,ip', 'export') // => ['geo.city', 'geo.country', 'ip']
 */
export function expandFields(all: readonly string[], list: string, command: string, context = ''): string[] {
  const out: string[] = [];
  for (const name of listItems(list)) {
    const group = all.filter((c) => c.startsWith(`${name}.`));
    const hits = all.includes(name) ? [name] : group;
    if (hits.length === 0) {
      const groups = [...new Set(all.filter((c) => c.includes('.')).map((c) => c.slice(0, c.indexOf('.'))))];
      throw new UsageError(`unknown field ${JSON.stringify(name)}${context}; fields: ${all.join(', ')}; groups: ${groups.join(', ')}`, command);
    }
    for (const h of hits) if (!out.includes(h)) out.push(h);
  }
  if (out.length === 0) throw new UsageError('--fields lists no field', command);
  return out;
}
