/** A strict RFC 4180 reader for the tests: rows of cells, quotes honoured. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else cell += c;
      i++;
      continue;
    }
    if (c === '"') {
      if (cell !== '') throw new Error(`quote inside an unquoted cell at ${i}`);
      quoted = true;
    } else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
    i++;
  }
  if (quoted) throw new Error('unterminated quote');
  if (cell !== '' || row.length > 0) throw new Error('last row lacks its newline');
  return rows;
}
