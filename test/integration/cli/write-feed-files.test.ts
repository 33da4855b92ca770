import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFeedFiles } from '../../../src/cli/write-feed-files.js';
import type { CatalogSnapshot, Offer } from '../../../src/core/catalog/catalog.js';
import { createChangeLog } from '../../../src/core/catalog/change-log.js';
import { createFeedBuilder } from '../../../src/services/feeds/feed-builder.js';
import { createFeedCache } from '../../../src/services/feeds/feed-cache.js';
import { createInThreadFeedRenderer } from '../../../src/services/feeds/feed-renderer.js';
import { createFeedService } from '../../../src/services/feeds/feed-service.js';

const dir = mkdtempSync(join(tmpdir(), 'write-feed-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cli/write-feed-files', () => {
  it('skips, and reports, a unit whose code cannot be a folder name, writing nothing outside the folder', async () => {
    const offer = (unit: string): Offer => ({ unit, price: 10, stock: 1, availability: 'in_stock' });
    const snapshot: CatalogSnapshot = {
      version: 'v-1',
      generatedAt: '2026-11-22T10:00:00.000Z',
      currency: 'CZK',
      primaryUnit: 'U1',
      units: [
        { code: 'U1', localId: 'u1', name: 'One' },
        { code: '..', localId: 'u2', name: 'Dots' },
      ],
      products: [{ id: 'a-1', name: 'Káva', isStockItem: true, offers: [offer('U1'), offer('..')], aggregate: offer('all') }],
    };
    const options = { currency: 'CZK', brand: undefined, baseUrl: '', links: { storeCodes: {} } };
    const feeds = createFeedService({
      templates: [],
      renderer: createInThreadFeedRenderer(createFeedBuilder([], options)),
      cache: createFeedCache({ maxBytes: 10_000_000 }),
      changeLog: createChangeLog({ maxTransitions: 2 }),
      options,
    });
    const out = join(dir, 'out');

    const index = await writeFeedFiles(feeds, snapshot, out);

    expect(index.skippedUnits).toEqual(['..']);
    expect(index.files.map((file) => file.path).sort()).toEqual([
      'U1/products-excel.csv',
      'U1/products.csv',
      'U1/products.json',
      'U1/products.xlsx',
      'all/products-excel.csv',
      'all/products.csv',
      'all/products.json',
      'all/products.xlsx',
    ]);
    expect(readdirSync(dir)).toEqual(['out']);
    expect(existsSync(join(out, 'U1', 'products.json'))).toBe(true);
    // Each file whole, inflated from the cached gzip form: the same bytes as its .gz and .br, of the indexed size.
    for (const file of index.files) {
      const body = readFileSync(join(out, ...file.path.split('/')));
      expect(body.length, file.path).toBe(file.bytes);
      if (file.path.endsWith('.xlsx')) {
        expect(body.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
        expect(file.compressed).toEqual([]);
        continue;
      }
      expect(gunzipSync(readFileSync(join(out, ...`${file.path}.gz`.split('/')))).equals(body), file.path).toBe(true);
      expect(brotliDecompressSync(readFileSync(join(out, ...`${file.path}.br`.split('/')))).equals(body), file.path).toBe(true);
    }
    expect(readFileSync(join(out, 'all', 'products.json'), 'utf8')).toContain('"a-1"');
  });
});
