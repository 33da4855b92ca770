import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoadedTemplates, loadTemplateDir } from '../../../src/app/feed-parts.js';
import { collectFeed } from '../../../src/core/feeds/collect-feed.js';
import type { FeedContext, FeedItem } from '../../../src/core/feeds/feed-item.js';
import { loadTemplates, TemplateLoadError } from '../../../src/core/feeds/load-templates.js';

/**
 * docs/custom-feeds.md cannot rot: its example templates are taken from the page, loaded with the loader
 * the bridge starts with (beside the shipped templates, as an operator's FEED_TEMPLATES_DIR would hold
 * them), rendered for the catalog the page describes, and compared with the output the page shows.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The fenced block after each `<!-- example-KIND: FILE … -->` marker of the page. */
function examples(page: string, kind: 'template' | 'output' | 'error'): Map<string, string> {
  const found = new Map<string, string>();
  const pattern = new RegExp(`<!-- example-${kind}: (\\S+)[^>]*-->\\s*\`\`\`[a-z]*\\n([\\s\\S]*?)\\n\`\`\``, 'g');
  for (const match of page.matchAll(pattern)) found.set(match[1] ?? '', match[2] ?? '');
  return found;
}

const CONTEXT: FeedContext = {
  version: 'v-20261122T100000000Z-1f3a9c2e',
  generatedAt: '2026-11-22T10:00:00.000Z',
  unit: 'all',
  unitName: 'All units',
  currency: 'CZK',
  baseUrl: 'https://feeds.shop.example',
};

const praha = { unit: 'U1', storeCode: 'praha-1', unitName: 'Praha' } as const;
const brno = { unit: 'U2', storeCode: 'brno', unitName: 'Brno' } as const;

/** The page's catalog: coffee on sale in Prague only, tea sold out, a mug without an EAN. */
const ITEMS: readonly FeedItem[] = [
  {
    id: 'a-1001',
    name: 'Káva zrnková 1 kg',
    ean: '8594000000013',
    price: 129,
    salePrice: 99,
    stock: 12,
    availability: 'in_stock',
    isStockItem: true,
    link: 'https://shop.example/p/a-1001',
    offers: [
      { ...praha, price: 129, salePrice: 99, stock: 12, availability: 'in_stock' },
      { ...brno, price: 129, stock: 0, availability: 'out_of_stock' },
    ],
  },
  {
    id: 'a-1002',
    name: 'Čaj & med',
    ean: '0036000291452',
    price: 59.9,
    stock: 0,
    availability: 'out_of_stock',
    isStockItem: true,
    offers: [
      { ...praha, price: 59.9, stock: 0, availability: 'out_of_stock' },
      { ...brno, price: 59.9, stock: 0, availability: 'out_of_stock' },
    ],
  },
  {
    id: 'a-1003',
    name: 'Hrnek 0,3 l',
    price: 150,
    stock: 2.5,
    availability: 'in_stock',
    isStockItem: true,
    offers: [{ ...praha, price: 150, stock: 2.5, availability: 'in_stock' }],
  },
];

describe('docs/custom-feeds.md', () => {
  let page: string;
  let dir: string;
  let loaded: LoadedTemplates;

  beforeAll(async () => {
    page = await readFile(join(ROOT, 'docs', 'custom-feeds.md'), 'utf8');
    dir = await mkdtemp(join(tmpdir(), 'custom-feeds-'));
    await cp(join(ROOT, 'templates'), dir, { recursive: true });
    for (const [file, text] of examples(page, 'template')) await writeFile(join(dir, file), text);
    loaded = await loadTemplateDir(dir);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('has its examples, and each loads beside the shipped templates', () => {
    expect([...examples(page, 'template').keys()]).toEqual(['price-check.json', 'store-stock.json']);
    expect(loaded.compiled.map((feed) => feed.file)).toEqual(
      expect.arrayContaining(['price-check.xml', 'store-stock.csv', 'google.xml']),
    );
  });

  it('shows the output the bridge renders for each example', () => {
    const outputs = examples(page, 'output');
    expect([...outputs.keys()]).toEqual(['price-check.json', 'store-stock.json']);
    for (const [file, expected] of outputs) {
      const feed = loaded.compiled.find((candidate) => candidate.source.endsWith(file));
      if (feed === undefined) throw new Error(`no feed loaded from ${file}`);
      const rendered = collectFeed(feed.render(CONTEXT, ITEMS));
      expect(rendered.body.toString('utf8').replace(/\r\n/g, '\n').trimEnd(), file).toBe(expected);
    }
  });

  it('reports what the page says the status page shows for the XML example', () => {
    const feed = loaded.compiled.find((candidate) => candidate.file === 'price-check.xml');
    const report = feed === undefined ? undefined : collectFeed(feed.render(CONTEXT, ITEMS)).report;
    expect(report).toMatchObject({ items: 1, filtered: 1, dropped: 1, warnings: { count: 1, byCode: { missing: 1 } } });
    expect(report?.warnings.examples[0]).toMatchObject({ itemId: 'a-1003', attribute: 'ean', code: 'missing' });
    expect(page).toContain('`a-1003: ean missing`');
  });

  it('shows the load error the bridge gives for the broken example', () => {
    const [file, shown] = [...examples(page, 'error')][0] ?? ['', ''];
    const text = examples(page, 'template').get(file)?.replace('"{name}"', '"{name|shout}"') ?? '';
    expect(text).toContain('{name|shout}');
    let message = '';
    try {
      loadTemplates([{ name: `my-templates/${file}`, text }]);
    } catch (error) {
      expect(error).toBeInstanceOf(TemplateLoadError);
      message = (error as Error).message;
    }
    expect(message).toBe(shown);
  });
});
