/**
 * CSV as feeds write it (RFC 4180 quoting: `"a, b"`, `""` for a quote):
 * one record per line (`parseCsvLine`: RFC 8805 geofeeds, DB-IP CSV, where
 * a line with an unclosed quote is malformed), record by record across
 * line breaks (`forEachCsvRecord`: bgp.tools `asns.csv`, whose names may
 * hold line breaks), or one field (`unquoteCsvField`).
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

/** Unquotes one RFC 4180 CSV field (`"a ""b"", c"` -> `a "b", c`); null if the quoting is broken. */
export function unquoteCsvField(text: string): string | null {
  if (text.charCodeAt(0) !== 34) return text.indexOf('"') < 0 ? text : null;
  if (text.length < 2 || text.charCodeAt(text.length - 1) !== 34) return null;
  const inner = text.slice(1, -1);
  if (inner.indexOf('"') < 0) return inner;
  // Every quote inside must be doubled.
  for (let i = 0; i < inner.length; i++) {
    if (inner.charCodeAt(i) === 34) {
      if (inner.charCodeAt(i + 1) !== 34) return null;
      i++;
    }
  }
  return inner.replaceAll('""', '"');
}

/**
 * Reads RFC 4180 CSV record by record: quoted fields may hold commas,
 * doubled quotes and line breaks; LF and CRLF both end a record; blank
 * lines are skipped. `line` is the 1-based line a record starts on. A
 * malformed record (unterminated quote, text after a closing quote, a quote
 * inside an unquoted field) goes to `onError` and reading resumes at the
 * next line.
 */
export function forEachCsvRecord(
  text: string,
  onRecord: (fields: string[], line: number) => void,
  onError: (line: number, message: string) => void,
): void {
  const n = text.length;
  let pos = 0;
  let line = 1;
  const skipLine = (from: number): void => {
    const nl = text.indexOf('\n', from);
    pos = nl < 0 ? n : nl + 1;
    line++;
  };
  while (pos < n) {
    const recLine = line;
    const c0 = text.charCodeAt(pos);
    if (c0 === 10 || (c0 === 13 && text.charCodeAt(pos + 1) === 10)) {
      pos += c0 === 10 ? 1 : 2;
      line++;
      continue;
    }
    const fields: string[] = [];
    let error: string | null = null;
    for (;;) {
      if (text.charCodeAt(pos) === 34) {
        const fieldStart = pos;
        let value = '';
        let i = pos + 1;
        let closed = false;
        for (;;) {
          const q = text.indexOf('"', i);
          if (q < 0) break;
          value += text.slice(i, q);
          if (text.charCodeAt(q + 1) === 34) {
            value += '"';
            i = q + 2;
            continue;
          }
          pos = q + 1;
          closed = true;
          break;
        }
        if (!closed) {
          pos = fieldStart;
          error = 'unterminated quoted field';
          break;
        }
        for (let k = value.indexOf('\n'); k >= 0; k = value.indexOf('\n', k + 1)) line++;
        fields.push(value);
        const c = text.charCodeAt(pos);
        if (c === 44) {
          pos++;
          continue;
        }
        if (pos >= n) break;
        if (c === 10 || (c === 13 && text.charCodeAt(pos + 1) === 10)) {
          pos += c === 10 ? 1 : 2;
          line++;
          break;
        }
        error = 'text after a closing quote';
        break;
      }
      let lineEnd = text.indexOf('\n', pos);
      if (lineEnd < 0) lineEnd = n;
      const comma = text.indexOf(',', pos);
      const end = comma >= 0 && comma < lineEnd ? comma : lineEnd > pos && text.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
      const value = text.slice(pos, end);
      if (value.indexOf('"') >= 0) {
        error = 'quote inside an unquoted field';
        break;
      }
      fields.push(value);
      if (end === comma) {
        pos = comma + 1;
        continue;
      }
      pos = lineEnd + 1;
      line++;
      break;
    }
    if (error !== null) {
      onError(recLine, error);
      skipLine(pos);
      continue;
    }
    onRecord(fields, recLine);
  }
}
