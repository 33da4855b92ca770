import type { CompiledFeed } from '../../core/feeds/compiled-feed.js';
import { CHANGES_FEED_FILE } from '../../core/feeds/render-changes-feed.js';
import { XLSX_CONTENT_TYPE, XLSX_FEED_FILE } from './xlsx-feed.js';

export type FeedFormat = 'json' | 'csv' | 'xml' | 'tsv' | 'xlsx';

/** One feed URL kind: a built-in (JSON, CSV) or a template from `templates/`. */
export interface FeedDescriptor {
  readonly name: string;
  readonly title: string;
  /** URL segment: `/feeds/{unit}/{file}`. */
  readonly file: string;
  readonly format: FeedFormat;
  readonly contentType: string;
  /** Rendered ahead of requests (`prewarm`): the feeds channels poll. Downloads for people are rendered on request. */
  readonly prewarmed: boolean;
  servesView(view: string): boolean;
}

export const JSON_TYPE = 'application/json; charset=utf-8';
const CSV_TYPE = 'text/csv; charset=utf-8; header=present';

/** The built-in feeds (JSON, CSV, the workbook), every view. */
const BUILT_IN_FEEDS: readonly FeedDescriptor[] = [
  {
    name: 'products-json',
    title: 'Catalog (JSON)',
    file: 'products.json',
    format: 'json',
    contentType: JSON_TYPE,
    prewarmed: true,
    servesView: () => true,
  },
  {
    name: 'products-csv',
    title: 'Catalog (CSV)',
    file: 'products.csv',
    format: 'csv',
    contentType: CSV_TYPE,
    prewarmed: true,
    servesView: () => true,
  },
  {
    // The spreadsheet download (typed cells, opens right in every locale): a few seconds of the render
    // thread at 100,000 products, so it is not rendered with every version, only when asked for.
    name: 'products-xlsx',
    title: 'Catalog (Excel workbook)',
    file: XLSX_FEED_FILE,
    format: 'xlsx',
    contentType: XLSX_CONTENT_TYPE,
    prewarmed: false,
    servesView: () => true,
  },
];
/**
 * `changes.json` without a cursor: the whole catalog, rendered like a feed (in the render thread, into
 * files), but not one of the listed feeds: its route reads the cursor (`changes-feed.ts`).
 */
export const WHOLE_CHANGES_FEED: FeedDescriptor = {
  name: 'changes-json',
  title: 'Changes (JSON)',
  file: CHANGES_FEED_FILE,
  format: 'json',
  contentType: JSON_TYPE,
  prewarmed: false,
  servesView: () => true,
};

/** The built-in feeds, then one per template. */
export function feedDescriptorsOf(templates: readonly CompiledFeed[]): FeedDescriptor[] {
  return [
    ...BUILT_IN_FEEDS,
    ...templates.map((template) => ({
      name: template.name,
      title: template.title,
      file: template.file,
      format: template.kind,
      contentType: template.contentType,
      prewarmed: true,
      servesView: (view: string) => template.servesView(view),
    })),
  ];
}
