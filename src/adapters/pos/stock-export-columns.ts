import {
  STOCK_COLUMNS,
  type StockColumn,
  type StockColumnMatch,
  type StockColumnOverride,
} from '../../core/catalog/pos-documents.js';
import { detach, type TextRecord } from './stock-export-records.js';

/** Which header cell of a stock export is which column: by the operator's override, else by Czech and English synonyms. */

/** Accepted header names per column, as a person would write them; matched after `headerKey`. */
export const SYNONYMS: Readonly<Record<StockColumn, readonly string[]>> = {
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

export interface Mapping {
  readonly columns: Partial<Record<StockColumn, StockColumnMatch>>;
  readonly problems: readonly string[];
}

/** Maps header cells to columns: overrides first, then synonyms, then the ambiguous `unit`. */
export function mapHeader(header: readonly string[], override: StockColumnOverride, sample: readonly TextRecord[]): Mapping {
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
