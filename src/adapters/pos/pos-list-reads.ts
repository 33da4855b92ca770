import type { z } from 'zod';
import type { PosMovement, PosRejectedItem } from '../../core/catalog/pos-records.js';
import type { SourceArticle, SourceUnit } from '../../core/catalog/source.js';
import type { PosListResult, PosMovementFilter } from '../../services/catalog/pos-port.js';
import { readAllPages } from './paging.js';
import { plainSourceArticle, SourceArticleSchema, SourceUnitSchema } from './pos-catalog-schema.js';
import type { EnvelopeReading } from './pos-envelope-reading.js';
import { PosListDataSchema } from './pos-envelope-schema.js';
import { parseLooseList, posItemId } from './pos-loose-list.js';
import { PosMovementSchema } from './pos-movement-schema.js';
import type { PosClientLogger, PosTransport } from './pos-transport.js';

/**
 * The paged JSON lists of interface 4.1, 4.2 and 4.4 (units, articles, stock movements): every page
 * read (paging.ts), each item validated on its own, bad and duplicate items reported, never fatal.
 */

const PATHS = {
  units: '/ext/unit/list',
  articles: '/ext/assortment/article/list',
  movements: '/ext/stockholding/movement/list',
} as const;

export interface PosListReads {
  listUnits(): Promise<PosListResult<SourceUnit>>;
  listArticles(options?: { readonly priceOutput?: string }): Promise<PosListResult<SourceArticle>>;
  listMovements(options?: { readonly filter?: PosMovementFilter }): Promise<PosListResult<PosMovement>>;
}

export interface PosListSettings {
  readonly pageSize: number;
  readonly concurrency: number;
  readonly maxPages: number;
}

export function createListReads(
  transport: PosTransport,
  envelopes: EnvelopeReading,
  settings: PosListSettings,
  logger: PosClientLogger,
): PosListReads {
  async function readList<Schema extends z.ZodType>(
    path: string,
    makeBody: (skip: number, limit: number) => Record<string, unknown>,
    itemSchema: Schema,
    idOfItem: (item: z.output<Schema>) => string,
    /** The schema's result for an item it surely accepts, found faster; `undefined`: the schema decides. */
    plainItem?: (raw: unknown) => z.output<Schema> | undefined,
  ): Promise<PosListResult<z.output<Schema>>> {
    type Item = z.output<Schema>;
    const method = 'POST';
    const fullPath = transport.basePath + path;
    const paged = await readAllPages({
      pageSize: settings.pageSize,
      concurrency: settings.concurrency,
      maxPages: settings.maxPages,
      method,
      path: fullPath,
      idOf: posItemId,
      fetchPage: async (skip, limit) => {
        const operation = transport.jsonOperation(path, makeBody(skip, limit));
        const data = await transport.call(operation, envelopes.readEnvelope(PosListDataSchema));
        const items = Array.isArray(data.items) ? data.items : [data.items];
        logger.debug({ method, path: fullPath, skip, limit, received: items.length, total: data.total }, 'POS page read');
        return data.total === undefined ? { items } : { items, total: data.total };
      },
      onPage: (raw, offset) => {
        // Item by item, so that every kept item keeps its position in the list for the duplicate report.
        const kept: { item: Item; index: number }[] = [];
        const rejected: PosRejectedItem[] = [];
        for (const [position, entry] of raw.entries()) {
          const index = offset + position;
          const plain = plainItem?.(entry);
          if (plain !== undefined) {
            kept.push({ item: plain, index });
            continue;
          }
          const parsed = parseLooseList([entry], itemSchema, { offset: index });
          const item = parsed.items[0];
          if (parsed.items.length === 1 && item !== undefined) kept.push({ item, index });
          rejected.push(...parsed.rejected);
        }
        return { kept, rejected };
      },
    });
    const items: Item[] = [];
    const rejected: PosRejectedItem[] = [];
    const seen = new Set<string>();
    for (const page of paged.results) {
      rejected.push(...page.rejected);
      for (const { item, index } of page.kept) {
        const id = idOfItem(item);
        if (seen.has(id)) {
          // A list that shifted while it was read (or a POS bug): one item per id, the rest reported.
          rejected.push({ id, index, issues: ['duplicate id: an earlier item of the list has the same id'] });
          continue;
        }
        seen.add(id);
        items.push(item);
      }
    }
    if (rejected.length > 0) {
      logger.warn({ method, path: fullPath, rejected: rejected.length, accepted: items.length }, 'POS list items rejected');
    }
    return {
      items,
      rejected,
      pages: paged.pages,
      ...(paged.total === undefined ? {} : { total: paged.total }),
    };
  }

  return {
    async listUnits() {
      // `select` is omitted: its allowed values are not documented, and without it the POS sends whole units.
      return readList(
        PATHS.units,
        (skip, limit) => ({ limit, skip }),
        SourceUnitSchema,
        (unit) => unit.localId,
      );
    },

    async listArticles({ priceOutput = 'with_vat' } = {}) {
      return readList(
        PATHS.articles,
        (skip, limit) => ({ limit, skip, options: { priceOutput } }),
        SourceArticleSchema,
        (article) => article.localId,
        plainSourceArticle,
      );
    },

    async listMovements({ filter } = {}) {
      return readList(
        PATHS.movements,
        (skip, limit) => (filter === undefined ? { limit, skip } : { filter, limit, skip }),
        PosMovementSchema,
        (movement) => movement._id,
      );
    },
  };
}
