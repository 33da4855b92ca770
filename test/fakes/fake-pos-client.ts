import { PosUnavailableError } from '../../src/adapters/pos/pos-errors.js';
import type { SourceArticle, SourceUnit } from '../../src/core/catalog/source.js';
import type { PosClient } from '../../src/services/catalog/pos-port.js';

export interface FakePosData {
  units: SourceUnit[];
  articles: SourceArticle[];
  /** Price-list XML per unit code. */
  priceLists: Record<string, string>;
  /** Stock export text per unit code. */
  stock: Record<string, string>;
  /** When set, every call fails with this error. */
  failWith?: Error;
  /** When set, awaited before a stock export is returned. */
  stockDelay?: (unitCode: string) => Promise<void>;
}

/** An in-memory PosClient: the sync service's real code paths without HTTP. */
export function createFakePosClient(data: FakePosData): PosClient {
  function check(): void {
    if (data.failWith !== undefined) throw data.failWith;
  }
  return {
    async listUnits() {
      check();
      return { items: data.units, rejected: [], pages: 1, total: data.units.length };
    },
    async listArticles() {
      check();
      return { items: data.articles, rejected: [], pages: 1 };
    },
    async listMovements() {
      check();
      return { items: [], rejected: [], pages: 1, total: 0 };
    },
    async getClient() {
      check();
      return undefined;
    },
    async fetchPriceListXml(unit) {
      check();
      const xml = data.priceLists[unit.code] ?? '<?xml version="1.0"?><root/>';
      const bytes = new TextEncoder().encode(xml);
      return {
        async *[Symbol.asyncIterator]() {
          // Two chunks, split mid-document, as a network would deliver them.
          yield bytes.subarray(0, Math.floor(bytes.length / 2));
          yield bytes.subarray(Math.floor(bytes.length / 2));
        },
        cancel() {},
      };
    },
    async fetchStockExport(unit) {
      check();
      // The export as it is when asked for, delivered after `stockDelay` (a slow answer).
      const text = data.stock[unit.code] ?? 'code;quantity\n';
      await data.stockDelay?.(unit.code);
      return new TextEncoder().encode(text);
    },
    async fetchStockExportAll() {
      check();
      return new TextEncoder().encode('');
    },
    async close() {},
  };
}

export function posDown(): PosUnavailableError {
  return new PosUnavailableError('connection refused', { method: 'POST', path: '/ext/unit/list' });
}

/** `count` articles a-1…a-N with PLU 1000+i, price 10+i, and the matching price list and stock of one unit. */
export function demoData(count: number): FakePosData {
  const articles: SourceArticle[] = [];
  let items = '';
  let stock = 'PLU;Množství\r\n';
  for (let i = 1; i <= count; i++) {
    articles.push({ localId: `a-${i}`, name: `Zboží č. ${i} & spol.`, plu: 1000 + i, salesPrice: 10 + i, purchasePrice: 5 });
    items += `<SHOPITEM><CODE>${1000 + i}</CODE><PRICE_VAT>${(12 + i).toFixed(2)}</PRICE_VAT><STOCK><AMOUNT>1</AMOUNT></STOCK></SHOPITEM>`;
    stock += `${1000 + i};${i % 3},5\r\n`;
  }
  return {
    units: [{ localId: 'u-1', code: 'U1', name: 'Prodejna', priceLists: [] }],
    articles,
    priceLists: { U1: `<?xml version="1.0" encoding="UTF-8"?><SHOP>${items}</SHOP>` },
    stock: { U1: stock },
  };
}
