import { TextDecoder } from 'node:util';
import type { StockRow } from '../../core/catalog/source.js';
import { StockExportParseError } from './parse-errors.js';
import { parseDecimal } from './parse-number.js';

/**
 * Tolerant parser of the POS stock export (interface 4.6/4.7, `text/plain`). Nothing public describes
 * its layout (docs/pos-interface.md, the stock export), so the parser assumes only "delimited text with a header row" and
 * discovers the rest (docs/catalog-rules.md rule 4):
 * - bytes are UTF-8, else windows-1250 (what Czech Windows tools write); a BOM is dropped;
 * - CRLF, LF and CR line ends; RFC 4180 quoting (`"a;b"`, `"say ""hi"""`);
 * - the delimiter is sniffed among `;` `\t` `,` `|` (an Excel `sep=;` first line is honoured);
 * - the header is found among the first lines (title lines above it are reported and skipped) and its
 *   columns are mapped by name, case- and diacritics-insensitively, from Czech and English synonyms;
 *   the operator's override (`POS_STOCK_COLUMNS`) wins;
 * - quantities in any common spelling (`parseDecimal`).
 *
 * The bare English header `unit` is ambiguous: the POS API calls a sales point (středisko) a "unit",
 * while exports often label the measure unit so. It is read as the sales point, except when another
 * column already is the sales point, or when every sampled value looks like a measure unit (`ks`, `kg`,
 * `pcs`, ...), in which case it is the measure unit. An override settles it for good.
 *
 * A bad row (no code, unreadable quantity) is skipped and reported; only a document without a usable
 * header throws, always as `StockExportParseError`.
 */

export const STOCK_COLUMNS = ['code', 'plu', 'ean', 'name', 'quantity', 'measureUnit', 'unit'] as const;
export type StockColumn = (typeof STOCK_COLUMNS)[number];

/** Header names chosen by the operator, e.g. from `POS_STOCK_COLUMNS=code=Kód,quantity=Množství`. */
export type StockColumnOverride = Readonly<Partial<Record<StockColumn, string>>>;

export interface StockExportOptions {
  readonly columns?: StockColumnOverride;
}

export type StockDelimiter = ';' | ',' | '\t' | '|';

export interface StockColumnMatch {
  /** 0-based index of the column in each record. */
  readonly index: number;
  /** The header cell as written. */
  readonly header: string;
}

export interface StockExportSkip {
  readonly line: number;
  readonly reason: string;
}

export interface StockExportSummary {
  /** `utf-8` or `windows-1250` for byte input; absent for string input. */
  readonly encoding?: string;
  /** Absent only for an empty document. */
  readonly delimiter?: StockDelimiter;
  /** 1-based line of the header; absent only for an empty document. */
  readonly headerLine?: number;
  readonly header: readonly string[];
  readonly mapping: Readonly<Partial<Record<StockColumn, StockColumnMatch>>>;
  /** Non-empty data records after the header. */
  readonly rowsRead: number;
  /** Records that gave no row, with the reason; at most `MAX_SKIPS_REPORTED` entries. */
  readonly skipped: readonly StockExportSkip[];
  readonly skippedCount: number;
}

/** The skip list keeps at most this many entries (the count stays exact), so memory stays bounded. */
export const MAX_SKIPS_REPORTED = 1000;

const CANDIDATE_DELIMITERS: readonly StockDelimiter[] = [';', '\t', ',', '|'];

function isDelimiter(value: string): value is StockDelimiter {
  return (CANDIDATE_DELIMITERS as readonly string[]).includes(value);
}
/** Title lines tolerated above the header. */
const HEADER_SEARCH_RECORDS = 5;
/** Data records after a candidate header used to judge a delimiter and the `unit` column. */
const SAMPLE_RECORDS = 20;

/** Accepted header names per column, as a person would write them; matched after `headerKey`. */
const SYNONYMS: Readonly<Record<StockColumn, readonly string[]>> = {
  code: [
    'kód',
    'code',
    'sku',
    'katalogové číslo',
    'kat. číslo',
    'číslo zboží',
    'číslo položky',
    'kód zboží',
    'kód položky',
    'kód artiklu',
    'interní kód',
    'interní identifikátor',
    'identifikátor',
    'internal identifier',
    'internal code',
    'identifier',
    'id',
    'local id',
    'article id',
    'article code',
    'item code',
    'product code',
  ],
  plu: ['plu', 'plu kód', 'plu code'],
  ean: ['ean', 'ean13', 'ean kód', 'gtin', 'čárový kód', 'barcode', 'bar code'],
  name: [
    'název',
    'name',
    'položka',
    'název položky',
    'název zboží',
    'zboží',
    'artikl',
    'article',
    'article name',
    'item',
    'item name',
    'product',
    'product name',
    'popis',
    'description',
  ],
  quantity: [
    'množství',
    'stav',
    'zásoba',
    'quantity',
    'qty',
    'stock',
    'amount',
    'count',
    'ks',
    'počet',
    'počet kusů',
    'stav skladu',
    'stav zásob',
    'skladem',
    'na skladě',
    'množství skladem',
    'zůstatek',
    'stock quantity',
    'in stock',
    'available',
  ],
  measureUnit: ['mj', 'm.j.', 'jednotka', 'měrná jednotka', 'measure unit', 'unit of measure', 'uom'],
  unit: [
    'středisko',
    'kód střediska',
    'název střediska',
    'pobočka',
    'prodejna',
    'provozovna',
    'store',
    'store code',
    'branch',
    'warehouse',
    'unit code',
    'unit name',
    'unit id',
  ],
};

/** The one header name that may mean either column; resolved by `resolveAmbiguousUnit`. */
const AMBIGUOUS_UNIT_KEY = 'unit';

/** Values that identify a measure unit column (keys as `headerKey` makes them). */
const MEASURE_UNIT_VALUES: ReadonlySet<string> = new Set(
  ['ks', 'kus', 'kusy', 'pcs', 'pc', 'piece', 'pieces', 'kg', 'g', 'dkg', 'mg', 't', 'l', 'ml', 'dl', 'cl', 'hl', 'm', 'cm', 'mm']
    .concat(['m2', 'm3', 'bal', 'balení', 'pack', 'box', 'krabice', 'ks.', 'hod', 'h', 'set', 'sada', 'pár', 'pair'])
    .map(headerKey),
);

/** Header key → column and rank (position in its synonym list: `kód` outranks `id` when both are present). */
const KEY_TO_COLUMN: ReadonlyMap<string, { readonly column: StockColumn; readonly rank: number }> = buildKeyIndex();

function buildKeyIndex(): Map<string, { column: StockColumn; rank: number }> {
  const index = new Map<string, { column: StockColumn; rank: number }>();
  for (const column of STOCK_COLUMNS) {
    for (const [rank, name] of SYNONYMS[column].entries()) index.set(headerKey(name), { column, rank });
  }
  return index;
}

/**
 * Comparison key of a header cell: diacritics, case, camelCase humps, spaces and punctuation do not
 * matter (`Množství` = `mnozstvi`, `measureUnit` = `Measure unit` = `MEASURE_UNIT`, `M.J.` = `mj`).
 */
export function headerKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/** `Množství (ks)`, `Stav [MJ]`: a bracketed suffix names a unit, not the column. */
function withoutBrackets(name: string): string {
  return name.replace(/\([^)]*\)|\[[^\]]*\]/g, ' ');
}

/** Bound of the table of repeated short values, so a hostile export cannot grow it without limit. */
const SHARED_VALUES_LIMIT = 10_000;

/**
 * A flat copy of a string. Field values are slices of the whole decoded export, and V8 keeps a sliced
 * string's parent alive: without copies, the rows of each unit would pin their export text (a measured
 * 233 MiB retained for 500k rows). Strings under 13 characters are already copies. Lossless.
 */
function detach(text: string): string {
  return text.length < 13 ? text : Buffer.from(text, 'utf16le').toString('utf16le');
}

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;

interface TextRecord {
  readonly fields: string[];
  /** 1-based line the record starts on. */
  readonly line: number;
  /** Where the next record starts, to resume reading after this one. */
  readonly next: { readonly offset: number; readonly line: number };
}

/**
 * Splits delimited text into records, RFC 4180 style, one record at a time (no copy of the text).
 * Lenient where RFC 4180 is strict: characters after a closing quote are kept, and a quote that is
 * never closed is treated as a literal character, so one stray `"` cannot swallow the rest of the export.
 */
function createRecordReader(text: string, delimiter: StockDelimiter, start: number, startLine: number) {
  const delimiterCode = delimiter.charCodeAt(0);
  const length = text.length;
  let position = start;
  let line = startLine;

  function isBoundary(code: number): boolean {
    return code === delimiterCode || code === LF || code === CR;
  }

  function read(quotes: boolean): { fields: string[]; end: number; breaks: number } | undefined {
    const fields: string[] = [];
    let i = position;
    let breaks = 0;
    for (;;) {
      let quoteAt = i;
      if (quotes) {
        // Tolerate spaces before an opening quote (`a; "b"`), a common hand-edited form.
        while (quoteAt < length && text.charCodeAt(quoteAt) === SPACE && delimiterCode !== SPACE) quoteAt += 1;
      }
      if (quotes && text.charCodeAt(quoteAt) === QUOTE) {
        let value = '';
        let j = quoteAt + 1;
        let segment = j;
        for (;;) {
          if (j >= length) return undefined; // Unterminated: the caller re-reads without quotes.
          const code = text.charCodeAt(j);
          if (code === QUOTE) {
            if (text.charCodeAt(j + 1) === QUOTE) {
              value += text.slice(segment, j + 1);
              j += 2;
              segment = j;
              continue;
            }
            value += text.slice(segment, j);
            j += 1;
            break;
          }
          if (code === LF || (code === CR && text.charCodeAt(j + 1) !== LF)) breaks += 1;
          j += 1;
        }
        let k = j;
        while (k < length && !isBoundary(text.charCodeAt(k))) k += 1;
        fields.push(value + text.slice(j, k));
        i = k;
      } else {
        let k = i;
        while (k < length && !isBoundary(text.charCodeAt(k))) k += 1;
        fields.push(text.slice(i, k));
        i = k;
      }
      if (i >= length) return { fields, end: length, breaks };
      const code = text.charCodeAt(i);
      if (code === delimiterCode) {
        i += 1;
        continue;
      }
      i += code === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      return { fields, end: i, breaks: breaks + 1 };
    }
  }

  return {
    /** The next record, or `undefined` at the end of the text. */
    next(): TextRecord | undefined {
      if (position >= length) return undefined;
      const result = read(true) ?? read(false);
      // `read(false)` always ends at a line break or the end of the text, so it never returns undefined.
      if (result === undefined) return undefined;
      const recordLine = line;
      position = result.end;
      line += result.breaks;
      return { fields: result.fields, line: recordLine, next: { offset: position, line } };
    },
  };
}

function isBlank(fields: readonly string[]): boolean {
  for (const field of fields) if (field.trim() !== '') return false;
  return true;
}

/** Reads up to `count` non-blank records. */
function readRecords(text: string, delimiter: StockDelimiter, start: number, startLine: number, count: number): TextRecord[] {
  const reader = createRecordReader(text, delimiter, start, startLine);
  const records: TextRecord[] = [];
  while (records.length < count) {
    const record = reader.next();
    if (record === undefined) break;
    if (!isBlank(record.fields)) records.push(record);
  }
  return records;
}

interface Mapping {
  readonly columns: Partial<Record<StockColumn, StockColumnMatch>>;
  readonly problems: readonly string[];
}

/** Maps header cells to columns: overrides first, then synonyms, then the ambiguous `unit`. */
function mapHeader(header: readonly string[], override: StockColumnOverride, sample: readonly TextRecord[]): Mapping {
  const columns: Partial<Record<StockColumn, StockColumnMatch>> = {};
  const problems: string[] = [];
  const taken = new Set<number>();
  const overridden = new Set<StockColumn>();
  const keys = header.map((cell) => headerKey(cell));
  const bareKeys = header.map((cell) => headerKey(withoutBrackets(cell)));

  for (const column of STOCK_COLUMNS) {
    const wanted = override[column];
    if (wanted === undefined || wanted.trim() === '') continue;
    const key = headerKey(wanted);
    let index = keys.indexOf(key);
    if (index < 0) index = bareKeys.indexOf(key);
    if (index < 0) {
      problems.push(`the configured ${column} column "${wanted}" is not in the header`);
      continue;
    }
    if (taken.has(index)) {
      problems.push(`the configured ${column} column "${wanted}" is configured for another field too`);
      continue;
    }
    columns[column] = { index, header: detach(header[index]?.trim() ?? '') };
    taken.add(index);
    overridden.add(column);
  }

  const ambiguous: number[] = [];
  const ranks: Partial<Record<StockColumn, number>> = {};
  for (const [index, cell] of header.entries()) {
    if (taken.has(index)) continue;
    const key = keys[index] ?? '';
    const bare = bareKeys[index] ?? '';
    if (key === AMBIGUOUS_UNIT_KEY || bare === AMBIGUOUS_UNIT_KEY) {
      ambiguous.push(index);
      continue;
    }
    const match = KEY_TO_COLUMN.get(key) ?? KEY_TO_COLUMN.get(bare);
    if (match === undefined || overridden.has(match.column)) continue;
    // Of several candidates for one column, the best-ranked name wins, then the leftmost.
    const current = ranks[match.column];
    if (current !== undefined && current <= match.rank) continue;
    columns[match.column] = { index, header: detach(cell.trim()) };
    ranks[match.column] = match.rank;
  }
  for (const index of ambiguous) {
    const column = resolveAmbiguousUnit(index, columns, sample);
    if (column !== undefined) columns[column] = { index, header: detach(header[index]?.trim() ?? '') };
  }

  if (columns.quantity === undefined) problems.push('no quantity column');
  if (columns.code === undefined && columns.plu === undefined && columns.ean === undefined) {
    problems.push('no identifying column (code, PLU or EAN)');
  }
  return { columns, problems };
}

function resolveAmbiguousUnit(
  index: number,
  columns: Partial<Record<StockColumn, StockColumnMatch>>,
  sample: readonly TextRecord[],
): StockColumn | undefined {
  const salesPointFree = columns.unit === undefined;
  const measureFree = columns.measureUnit === undefined;
  if (!salesPointFree) return measureFree ? 'measureUnit' : undefined;
  if (!measureFree) return 'unit';
  let values = 0;
  for (const record of sample) {
    const value = record.fields[index]?.trim() ?? '';
    if (value === '') continue;
    if (!MEASURE_UNIT_VALUES.has(headerKey(value))) return 'unit';
    values += 1;
  }
  return values > 0 ? 'measureUnit' : 'unit';
}

interface Layout {
  readonly delimiter: StockDelimiter;
  readonly header: TextRecord;
  readonly mapping: Mapping;
  /** Records above the header (title lines). */
  readonly above: readonly TextRecord[];
  /** How many sampled data records have as many fields as the header. */
  readonly consistency: number;
}

/**
 * Tries every delimiter and each of the first few records as the header; the winner is the earliest
 * header that maps, then the delimiter whose data rows agree best with the header's width.
 */
function sniffLayout(
  text: string,
  start: number,
  startLine: number,
  override: StockColumnOverride,
  forced: StockDelimiter | undefined,
): Layout | undefined {
  let best: { layout: Layout; headerIndex: number; priority: number } | undefined;
  const delimiters = forced === undefined ? CANDIDATE_DELIMITERS : [forced];
  for (const [priority, delimiter] of delimiters.entries()) {
    const records = readRecords(text, delimiter, start, startLine, HEADER_SEARCH_RECORDS + SAMPLE_RECORDS);
    for (let headerIndex = 0; headerIndex < Math.min(HEADER_SEARCH_RECORDS, records.length); headerIndex += 1) {
      const header = records[headerIndex];
      if (header === undefined || header.fields.length < 2) continue;
      const sample = records.slice(headerIndex + 1, headerIndex + 1 + SAMPLE_RECORDS);
      const mapping = mapHeader(header.fields, override, sample);
      if (mapping.problems.length > 0) continue;
      let consistency = 0;
      for (const record of sample) if (record.fields.length === header.fields.length) consistency += 1;
      const layout = { delimiter, header, mapping, above: records.slice(0, headerIndex), consistency };
      if (best === undefined || isBetter(headerIndex, layout, priority, best)) best = { layout, headerIndex, priority };
      break;
    }
  }
  return best?.layout;
}

function isBetter(
  headerIndex: number,
  layout: Layout,
  priority: number,
  best: { layout: Layout; headerIndex: number; priority: number },
): boolean {
  if (headerIndex !== best.headerIndex) return headerIndex < best.headerIndex;
  if (layout.consistency !== best.layout.consistency) return layout.consistency > best.layout.consistency;
  if (layout.header.fields.length !== best.layout.header.fields.length) {
    return layout.header.fields.length > best.layout.header.fields.length;
  }
  return priority < best.priority;
}

/** Builds the error for a document none of whose first lines is a usable header. */
function headerError(text: string, start: number, startLine: number, override: StockColumnOverride): StockExportParseError {
  // Show the first line as the delimiter that splits it most would: that is what the operator should recognise.
  let shown: TextRecord | undefined;
  for (const delimiter of CANDIDATE_DELIMITERS) {
    const [first] = readRecords(text, delimiter, start, startLine, 1);
    if (first !== undefined && (shown === undefined || first.fields.length > shown.fields.length)) shown = first;
  }
  const header = (shown?.fields ?? []).map((cell) => detach(cell.trim()));
  const problems = mapHeader(header, override, []).problems;
  const accepted = [
    `quantity: ${SYNONYMS.quantity.join(', ')}`,
    `code: ${SYNONYMS.code.join(', ')}`,
    `PLU: ${SYNONYMS.plu.join(', ')}`,
    `EAN: ${SYNONYMS.ean.join(', ')}`,
  ].join('; ');
  const message =
    `stock export has no usable header: line ${shown?.line ?? startLine} reads ${JSON.stringify(header)} ` +
    `(${problems.join(', ')}). Accepted column names (case and diacritics ignored) - ${accepted}. ` +
    'Other names can be configured with POS_STOCK_COLUMNS, e.g. code=Kód,quantity=Množství.';
  return new StockExportParseError(message, { line: shown?.line ?? startLine, header });
}

/** Bytes as UTF-8 when they are valid UTF-8, else windows-1250 (cp1250 is what Czech Windows tools write). */
function decode(input: string | Uint8Array): { text: string; encoding?: string } {
  if (typeof input === 'string') return { text: input.charCodeAt(0) === 0xfeff ? input.slice(1) : input };
  try {
    // ignoreBOM: false (the default) drops a UTF-8 BOM.
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(input), encoding: 'utf-8' };
  } catch {
    return { text: new TextDecoder('windows-1250').decode(input), encoding: 'windows-1250' };
  }
}

/**
 * Parses a stock export into rows, one per data record with a code and a readable quantity.
 *
 * @throws StockExportParseError when none of the first lines is a header with a quantity column and an
 *   identifying (code, PLU or EAN) column, or when an override names a column the header lacks.
 * @example
 * const { rows, summary } = parseStockExport(body, { columns: { quantity: 'Zůstatek' } });
 */
export function parseStockExport(
  input: string | Uint8Array,
  options: StockExportOptions = {},
): { rows: StockRow[]; summary: StockExportSummary } {
  const rows: StockRow[] = [];
  const summary = readStockExport(input, (row) => rows.push(row), options);
  return { rows, summary };
}

/**
 * `parseStockExport` that hands each row to `onRow` as it is read instead of collecting them, so that a
 * caller can keep them compactly (`createStockRowCollector`); each row object dies young.
 *
 * @throws StockExportParseError as `parseStockExport`.
 */
export function readStockExport(
  input: string | Uint8Array,
  onRow: (row: StockRow) => void,
  options: StockExportOptions = {},
): StockExportSummary {
  const override = options.columns ?? {};
  const { text, encoding } = decode(input);
  const skipped: StockExportSkip[] = [];
  let skippedCount = 0;
  function skip(line: number, reason: string): void {
    skippedCount += 1;
    if (skipped.length < MAX_SKIPS_REPORTED) skipped.push({ line, reason });
  }
  function summarize(layout: Layout | undefined, rowsRead: number): StockExportSummary {
    const summary: { -readonly [K in keyof StockExportSummary]: StockExportSummary[K] } = {
      header: layout?.header.fields.map((field) => detach(field.trim())) ?? [],
      mapping: layout?.mapping.columns ?? {},
      rowsRead,
      skipped,
      skippedCount,
    };
    if (encoding !== undefined) summary.encoding = encoding;
    if (layout !== undefined) {
      summary.delimiter = layout.delimiter;
      summary.headerLine = layout.header.line;
    }
    return summary;
  }

  // Excel's "sep=;" hint line names the delimiter and is not part of the data.
  let start = 0;
  let startLine = 1;
  let forced: StockDelimiter | undefined;
  const hint = /^sep=(.)[ \t]*(\r\n|\r|\n|$)/i.exec(text);
  const hinted = hint?.[1];
  if (hint !== null && hinted !== undefined && isDelimiter(hinted)) {
    forced = hinted;
    start = hint[0].length;
    startLine = 2;
  }

  // Blank lines only (or nothing at all): a valid export of nothing.
  if (readRecords(text, forced ?? ';', start, startLine, 1).length === 0) return summarize(undefined, 0);

  const layout = sniffLayout(text, start, startLine, override, forced);
  if (layout === undefined) throw headerError(text, start, startLine, override);
  for (const record of layout.above) skip(record.line, 'line above the header');

  const columns = layout.mapping.columns;
  const reader = createRecordReader(text, layout.delimiter, layout.header.next.offset, layout.header.next.line);

  // Row values outlive the text, so they must not be slices of it (see `detach`); values of the
  // low-cardinality columns (unit, measure unit) are shared instead of copied 100k times.
  const shared = new Map<string, string>();
  function share(value: string): string {
    const known = shared.get(value);
    if (known !== undefined) return known;
    const copy = detach(value);
    if (shared.size < SHARED_VALUES_LIMIT) shared.set(copy, copy);
    return copy;
  }

  let rowsRead = 0;
  for (let record = reader.next(); record !== undefined; record = reader.next()) {
    if (isBlank(record.fields)) continue;
    rowsRead += 1;
    const cell = (column: StockColumn): string | undefined => {
      const match = columns[column];
      if (match === undefined) return undefined;
      const value = record.fields[match.index]?.trim();
      if (value === undefined || value === '') return undefined;
      if (column === 'quantity') return value; // parsed, never kept
      return column === 'unit' || column === 'measureUnit' ? share(value) : detach(value);
    };
    const codes: { code?: string; plu?: string; ean?: string } = {};
    const code = cell('code');
    if (code !== undefined) codes.code = code;
    const plu = cell('plu');
    if (plu !== undefined) codes.plu = plu;
    const ean = cell('ean');
    if (ean !== undefined) codes.ean = ean;
    if (code === undefined && plu === undefined && ean === undefined) {
      skip(record.line, 'no code, PLU or EAN');
      continue;
    }
    const rawQuantity = cell('quantity');
    if (rawQuantity === undefined) {
      skip(record.line, 'quantity is empty');
      continue;
    }
    const quantity = parseDecimal(rawQuantity);
    if (quantity === undefined) {
      skip(record.line, `quantity ${JSON.stringify(rawQuantity)} is not a number`);
      continue;
    }
    const row: { -readonly [K in keyof StockRow]: StockRow[K] } = { codes, quantity, line: record.line };
    const name = cell('name');
    if (name !== undefined) row.name = name;
    const measureUnit = cell('measureUnit');
    if (measureUnit !== undefined) row.measureUnit = measureUnit;
    const unit = cell('unit');
    if (unit !== undefined) row.unit = unit;
    onRow(row);
  }

  return summarize(layout, rowsRead);
}
