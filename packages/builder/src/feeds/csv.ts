/**
 * One CSV record per line (RFC 4180 quoting: `"a, b"`, `""` for a quote),
 * as bgp.tools tag lists and RFC 8805 geofeeds write them. Records never
 * span lines in these feeds, so a line with an unclosed quote is malformed.
 *
 * @module
 */

/**
 * Splits one CSV line into fields, or returns null when a quote is not
 * closed or a closing quote is followed by something other than a comma.
 *
 * @example
 * parseCsvLine('AS3900,"""SWITCH"", LTD"') // => ['AS3900', '"SWITCH", LTD']
 * parseCsvLine('a,"b')                     // => null
 */
export function parseCsvLine(line: string): string[] | null {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let field = '';
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) return null;
        field += line.slice(i, q);
        if (line[q + 1] === '"') {
          field += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      fields.push(field);
      if (i === line.length) return fields;
      if (line[i] !== ',') return null;
      i++;
    } else {
      const comma = line.indexOf(',', i);
      if (comma < 0) {
        fields.push(line.slice(i));
        return fields;
      }
      fields.push(line.slice(i, comma));
      i = comma + 1;
    }
  }
}
