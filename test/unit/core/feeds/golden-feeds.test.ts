import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { type CollectedFeed, collectFeed } from '../../../../src/core/feeds/collect-feed.js';
import type { FeedReport } from '../../../../src/core/feeds/feed-report.js';
import { loadTemplates } from '../../../../src/core/feeds/load-templates.js';
import { renderCsvFeed } from '../../../../src/core/feeds/render-csv-feed.js';
import { renderJsonFeed } from '../../../../src/core/feeds/render-json-feed.js';
import { FIXTURE_CONTEXT, FIXTURE_ITEMS, ROOT, readTemplateFiles } from './feed-fixture.js';
import { strictXmlErrors } from './xml-test-helpers.js';

/**
 * Golden files: every feed of the fixture catalog, byte for byte. After an intended change, run
 * `UPDATE_GOLDEN=1 npx vitest run --config test/vitest.config.ts test/unit/core/feeds` and review the diff.
 */
const GOLDEN_DIRECTORY = join(ROOT, 'test/fixtures/feeds');
const UPDATE = process.env['UPDATE_GOLDEN'] === '1';

const feeds = loadTemplates(readTemplateFiles());

const rendered: Record<string, CollectedFeed> = {
  'products.json': collectFeed(renderJsonFeed(FIXTURE_CONTEXT, FIXTURE_ITEMS)),
  'products.csv': collectFeed(renderCsvFeed(FIXTURE_CONTEXT, FIXTURE_ITEMS, { unitColumns: ['PRG', 'BRN'] })),
  'products-excel.csv': collectFeed(
    renderCsvFeed(FIXTURE_CONTEXT, FIXTURE_ITEMS, { profile: 'excel', unitColumns: ['PRG', 'BRN'] }),
  ),
};
for (const feed of feeds) rendered[feed.file] = collectFeed(feed.render(FIXTURE_CONTEXT, FIXTURE_ITEMS));

function golden(name: string, actual: Buffer): void {
  const path = join(GOLDEN_DIRECTORY, name);
  if (UPDATE || !existsSync(path)) {
    mkdirSync(GOLDEN_DIRECTORY, { recursive: true });
    writeFileSync(path, actual);
  }
  // Compared as text for a readable diff; the byte check catches BOM/encoding differences too.
  expect(actual.toString('utf8')).toBe(readFileSync(path, 'utf8'));
  expect(actual.equals(readFileSync(path))).toBe(true);
}

describe('feeds: golden files of the fixture catalog', () => {
  it('ships the ten templates: six channel feeds and four e-shop platform imports', () => {
    expect(feeds.map((feed) => feed.file).sort()).toEqual([
      'google.xml',
      'heureka-availability.xml',
      'heureka.xml',
      'local-inventory.tsv',
      'meta.csv',
      'prestashop.csv',
      'shopify-inventory.csv',
      'shoptet.xml',
      'woocommerce.csv',
      'zbozi.xml',
    ]);
  });

  for (const name of Object.keys(rendered)) {
    it(`renders ${name} as the golden file`, () => {
      const feed = rendered[name] as CollectedFeed;
      golden(name, feed.body);
      if (name.endsWith('.xml')) {
        const text = feed.body.toString('utf8');
        expect(XMLValidator.validate(text)).toBe(true);
        expect(strictXmlErrors(text)).toEqual([]);
      }
    });
  }

  it('reports the same warnings and counts as the golden report', () => {
    const reports: Record<string, FeedReport> = {};
    for (const [name, feed] of Object.entries(rendered)) reports[name] = feed.report;
    golden('reports.json', Buffer.from(`${JSON.stringify(reports, null, 2)}\n`));
  });
});
