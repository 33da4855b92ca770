import { applyTextRule, createTextRule, type TruncationCounter } from './apply-text-rule.js';
import { cleanText } from './clean-text.js';
import type { ItemRules } from './compile-item-rules.js';
import type { FeedFrame } from './compiled-feed.js';
import { CSV_DIALECTS, type CsvDialect, rfc4180With } from './csv-dialect.js';
import type { RenderScope } from './feed-fields.js';
import { toNumber, toText } from './feed-filters.js';
import type { FeedContext, FeedItem } from './feed-item.js';
import { createFeedReporter, createPartPacer, type FeedChunks, type FeedRejection, MISSING } from './feed-report.js';
import { ColumnSchema, type FeedTemplate } from './feed-template-schema.js';
import { formatMoney, formatPlainNumber } from './format-number.js';
import { createStockState, omitsOffer } from './stock-policy.js';
import { compileAt, compilePattern, joinPath, type ProblemSink, parseAt } from './template-problems.js';

/**
 * Compiles a `csv` or `tsv` template: a header row, then one row per item (or per offer with
 * `"each": "offers"`). Cells are written by the dialect (csv-dialect.ts), so quoting, Excel
 * neutralisation and TSV flattening hold for every value whatever the template says.
 */
export interface DelimitedRenderer {
  render(context: FeedContext, items: Iterable<FeedItem>): FeedChunks;
  /** The header row and nothing after the rows: a body is `head`, the items' rows, `tail`. */
  frame(context: FeedContext): FeedFrame;
}

interface RowState extends RenderScope {
  failedAttribute: string;
  failed: FeedRejection;
  /** Counts the values cut to their length. */
  readonly counter: TruncationCounter;
}

type CellRenderer = (state: RowState) => string | null;

function fail(state: RowState, attribute: string, rejection: FeedRejection): null {
  state.failedAttribute = attribute;
  state.failed = rejection;
  return null;
}

export function compileDelimitedTemplate(
  template: FeedTemplate,
  rules: ItemRules,
  sink: ProblemSink,
): DelimitedRenderer | undefined {
  if (template.document !== undefined)
    sink.add('document', `"document" is for xml templates; a ${template.kind} template has "columns"`);
  if (template.kind === 'tsv' && template.dialect !== undefined) sink.add('dialect', '"dialect" applies to csv templates only');
  if (template.delimiter !== undefined && (template.kind === 'tsv' || template.dialect === 'excel')) {
    sink.add(
      'delimiter',
      template.kind === 'tsv'
        ? '"delimiter" applies to csv templates only (tsv is always TAB)'
        : '"delimiter" applies to the rfc4180 dialect only (excel always writes ";")',
    );
  }
  const rawColumns = template.columns ?? [];
  if (rawColumns.length === 0) sink.add('columns', `a ${template.kind} template needs at least one column`);
  const dialect: CsvDialect =
    template.kind === 'tsv'
      ? CSV_DIALECTS.tsv
      : template.dialect === 'excel'
        ? CSV_DIALECTS.excel
        : rfc4180With(template.delimiter ?? ',');
  const repeats = template.each === 'offers';
  const environment = { maps: template.maps ?? {}, itemScope: true, offerScope: repeats };

  const headers = new Set<string>();
  const cells: CellRenderer[] = [];
  const headerCells: string[] = [];
  rawColumns.forEach((raw, index) => {
    const path = joinPath('columns', index);
    const column = parseAt(sink, path, ColumnSchema, raw);
    if (column === undefined) return;
    if (headers.has(column.header)) sink.add(joinPath(path, 'header'), `duplicate column "${column.header}"`);
    headers.add(column.header);
    headerCells.push(dialect.text(cleanText(column.header)));
    const value = compileAt(sink, joinPath(path, 'value'), column.value, environment);
    const pattern = compilePattern(sink, joinPath(path, 'pattern'), column.pattern);
    if (value === undefined) return;
    const rule = createTextRule({
      ...(column.maxLength === undefined ? {} : { maxLength: column.maxLength }),
      ...(column.overflow === undefined ? {} : { overflow: column.overflow }),
      ...(pattern === undefined ? {} : { pattern }),
    });
    cells.push(compileCell(value.evaluate, column.type ?? 'text', rule, column.required === true, column.header, dialect));
  });
  if (sink.problems.length > 0) return undefined;

  const headerLine = dialect.preamble + headerCells.join(dialect.delimiter) + dialect.newline;
  const { delimiter, newline } = dialect;
  const renderRow = (state: RowState): string | null => {
    let row = '';
    for (let i = 0; i < cells.length; i++) {
      const cell = (cells[i] as CellRenderer)(state);
      if (cell === null) return null;
      row += i === 0 ? cell : delimiter + cell;
    }
    return row + newline;
  };

  return {
    frame: () => ({ head: headerLine, tail: '' }),
    *render(context, items) {
      const reporter = createFeedReporter(template.name);
      const state: RowState = {
        context,
        item: undefined,
        offer: undefined,
        stock: createStockState(rules.stockPolicy, context.unit),
        failedAttribute: '',
        failed: MISSING,
        counter: reporter,
      };
      let out = headerLine;
      const parts = createPartPacer();
      for (const item of items) {
        if (parts.due(out.length)) {
          yield out;
          out = '';
        }
        if (!rules.admit(item, state, reporter)) continue;
        if (!repeats) {
          const row = renderRow(state);
          if (row === null) {
            reporter.warn(item.id, state.failedAttribute, state.failed);
            reporter.dropped++;
            continue;
          }
          out += row;
          reporter.records++;
        } else {
          let rows = 0;
          let failed = 0;
          let omitted = 0;
          for (const offer of item.offers) {
            if (omitsOffer(state.stock, offer, item.isStockItem)) {
              omitted++;
              continue;
            }
            state.offer = offer;
            const row = renderRow(state);
            if (row === null) {
              reporter.warn(item.id, state.failedAttribute, state.failed, offer.unit);
              failed++;
              continue;
            }
            out += row;
            rows++;
          }
          if (rows === 0) {
            if (failed > 0) reporter.dropped++;
            else if (omitted > 0) reporter.outOfStock++;
            else reporter.filtered++;
            continue;
          }
          reporter.records += rows;
        }
        reporter.countItem();
      }
      yield out;
      return reporter.report();
    },
  };
}

function compileCell(
  evaluate: (scope: RenderScope) => string | number | undefined,
  type: 'text' | 'code' | 'number' | 'money',
  rule: ReturnType<typeof createTextRule>,
  required: boolean,
  header: string,
  dialect: CsvDialect,
): CellRenderer {
  const write = type === 'code' ? dialect.code : dialect.text;
  const separator = dialect.decimalSeparator;
  const text = (state: RowState, value: string | number | undefined): string | null => {
    const checked = applyTextRule(toText(value), rule, state.counter);
    if (typeof checked !== 'string' || checked === '') {
      return required ? fail(state, header, typeof checked === 'string' ? MISSING : checked) : '';
    }
    return write(checked);
  };
  if (type === 'number' || type === 'money') {
    const format = type === 'money' ? formatMoney : formatPlainNumber;
    return (state) => {
      const value = evaluate(state);
      const number = toNumber(value);
      // Numeric cells stay plain numbers (never neutralised or quoted: the decimal comma is not `;`).
      return number === undefined ? text(state, value) : (format(number, separator) ?? '');
    };
  }
  return (state) => text(state, evaluate(state));
}
