import { encodedChunks } from './encoded-chunks.js';
import { articleCode, type SandboxArticle, type SandboxUnit } from './sandbox-catalog.js';
import type { SandboxState } from './sandbox-state.js';

interface StockExportLayout {
  readonly bom: boolean;
  readonly delimiter: string;
  readonly newline: string;
  readonly decimal: ',' | '.';
  /** Header of the per-unit export; the all-units export puts `unitColumn` in front. */
  readonly header: readonly string[];
  readonly unitColumn: string;
  readonly code: (article: SandboxArticle) => string;
  readonly cell: (text: string) => string;
}

/** RFC 4180-style quoting for the `;` CSV: only cells that need it are quoted. */
function csvCell(text: string): string {
  return /[;"\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Tab-separated text has no quoting; tabs and line breaks (never generated) would become spaces. */
function tsvCell(text: string): string {
  return text.replace(/[\t\r\n]/g, ' ');
}

const TEXT_LAYOUT: StockExportLayout = {
  bom: false,
  delimiter: '\t',
  newline: '\n',
  decimal: '.',
  header: ['code', 'plu', 'ean', 'name', 'quantity', 'unit'],
  unitColumn: 'unit_code',
  code: (article) => article.localId,
  cell: tsvCell,
};

/**
 * One layout per `{type}` (interface 4.6 leaves them undocumented; src/sandbox/README.md describes them):
 * - `csv`: UTF-8 with BOM, `;`, CRLF, Czech header, decimal comma, `Kód` = internalIdentifier else PLU;
 * - `txt` and `tsv`: UTF-8, tab, LF, English header, decimal dot, `code` = article localId.
 */
export const STOCK_EXPORT_LAYOUTS: Readonly<Record<string, StockExportLayout>> = {
  csv: {
    bom: true,
    delimiter: ';',
    newline: '\r\n',
    decimal: ',',
    header: ['Kód', 'PLU', 'EAN', 'Název', 'Množství', 'MJ'],
    unitColumn: 'Středisko',
    code: (article) => articleCode(article) ?? '',
    cell: csvCell,
  },
  txt: TEXT_LAYOUT,
  tsv: TEXT_LAYOUT,
};

export function isStockExportType(type: string): boolean {
  return Object.hasOwn(STOCK_EXPORT_LAYOUTS, type);
}

/** Whole pieces print as integers; weighed goods (and fractional pieces) with three decimals. */
function formatQuantity(milli: number, byWeight: boolean, decimal: ',' | '.'): string {
  const text = !byWeight && milli % 1000 === 0 ? String(milli / 1000) : (milli / 1000).toFixed(3);
  return decimal === ',' ? text.replace('.', ',') : text;
}

function headerLine(layout: StockExportLayout, allUnits: boolean): string {
  const columns = allUnits ? [layout.unitColumn, ...layout.header] : layout.header;
  return `${layout.bom ? '\uFEFF' : ''}${columns.join(layout.delimiter)}${layout.newline}`;
}

/** Only the header row: what the `empty` fault answers. */
export function emptyStockExport(type: string, allUnits: boolean): string {
  const layout = STOCK_EXPORT_LAYOUTS[type] ?? TEXT_LAYOUT;
  return headerLine(layout, allUnits);
}

/**
 * The stock export of some units in the layout of `type`, as UTF-8 in chunks of about 64 KiB. Services
 * (`isStockItem: false`) have no rows; zero and negative stock are listed.
 */
export function* renderStockExport(
  state: SandboxState,
  type: string,
  units: readonly SandboxUnit[],
  allUnits: boolean,
): Generator<Buffer> {
  const layout = STOCK_EXPORT_LAYOUTS[type];
  if (layout === undefined) throw new Error(`unknown stock export type "${type}"`);
  yield* encodedChunks(stockExportLines(state, layout, units, allUnits));
}

function* stockExportLines(
  state: SandboxState,
  layout: StockExportLayout,
  units: readonly SandboxUnit[],
  allUnits: boolean,
): Generator<string> {
  yield headerLine(layout, allUnits);
  for (const unit of units) {
    for (let index = 0; index < state.catalog.articleCount; index++) {
      const article = state.article(index);
      if (article.isStockItem === false) continue;
      const cells = [
        layout.code(article),
        article.plu === undefined ? '' : String(article.plu),
        article.ean ?? '',
        article.name,
        formatQuantity(state.stockMilli(unit.index, index), article.byWeight, layout.decimal),
        article.measureUnit,
      ];
      if (allUnits) cells.unshift(unit.code);
      yield cells.map(layout.cell).join(layout.delimiter) + layout.newline;
    }
  }
}
