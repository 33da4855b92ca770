import { type Request, type RequestHandler, type Response, Router } from 'express';
import type { ActiveFault, FaultEndpoint } from './fault-injector.js';
import {
  asRecord,
  ImportedArticleSchema,
  ImportedClientSchema,
  importItems,
  issueText,
  objectBody,
  readDate,
  readOptionalString,
  readPaging,
  readPriceOutput,
} from './pos-request-reading.js';
import type { PosArticle, PosClient, PosUnit } from './pos-resources.js';
import { EMPTY_PRICE_LIST, renderPriceList } from './render-price-list.js';
import { emptyStockExport, isStockExportType, renderStockExport } from './render-stock-export.js';
import { readJsonBody } from './request-body.js';
import { type SandboxUnit, toPosArticle } from './sandbox-catalog.js';
import { type ClientQuery, clientMatches } from './sandbox-clients.js';
import {
  CONTENT_TYPES,
  entitiesReply,
  errorFaultReply,
  invalidReply,
  jsonReply,
  type Media,
  malformedReply,
  okEnvelope,
  type Reply,
  sendEndless,
  sendGzipBomb,
  sendLongLine,
  sendReply,
  sendTrickle,
  sendTruncated,
  textReply,
} from './sandbox-replies.js';
import type { SandboxState } from './sandbox-state.js';

const UNIT_FIELDS = ['code', 'name', 'localId', 'priceLists'] as const;
type UnitField = (typeof UNIT_FIELDS)[number];

interface EndpointDefinition {
  readonly endpoint: FaultEndpoint;
  readonly media: Media;
  handle(req: Request): Reply;
  /** What the `empty` fault answers: a valid, empty catalog in the endpoint's format. */
  empty(req: Request): Reply;
}

export interface PosRoutes {
  /** 4.1-4.4, mounted under /ext only. */
  readonly lists: Router;
  /** 4.5-4.9, mounted both under /ext and at the root. */
  readonly exports: Router;
}

export interface PosRoutesOptions {
  /** Checks the API key; runs on each route, so unknown paths still answer 404. */
  readonly auth: RequestHandler;
  /** Called when a fault rule fires for a request (the request log marks it). */
  readonly onFault: (req: Request, fault: ActiveFault) => void;
}

function toPosUnit(unit: SandboxUnit): PosUnit {
  return { code: unit.code, name: unit.name, localId: unit.localId, priceLists: unit.priceLists };
}

/**
 * The catalog indexes of one page of the article list: `skip`/`limit` count listed articles only, so a page
 * stays full when an article before it was unlisted (a deleted article is simply absent from the list).
 */
function listedIndexes(state: SandboxState, skip: number, limit: number): number[] {
  const count = state.catalog.articleCount;
  const unlisted = state.unlisted();
  const indexes: number[] = [];
  if (unlisted.length === 0) {
    for (let index = skip; index < Math.min(skip + limit, count); index++) indexes.push(index);
    return indexes;
  }
  // The listed position `skip` is the catalog index past every unlisted index at or before it.
  let start = skip;
  for (const index of unlisted) if (index <= start) start += 1;
  const hidden = new Set(unlisted);
  for (let index = start; index < count && indexes.length < limit; index++) if (!hidden.has(index)) indexes.push(index);
  return indexes;
}

/** Waits `ms`; resolves false when the client went away in the meantime. */
function delay(res: Response, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    function onClose(): void {
      clearTimeout(timer);
      resolve(false);
    }
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(!res.destroyed);
    }, ms);
    // A pending latency fault must not keep the process alive after stop().
    timer.unref();
    res.once('close', onClose);
  });
}

/** The operations of interface part 4, each behind the fault injector. */
export function createPosRoutes(state: SandboxState, options: PosRoutesOptions): PosRoutes {
  const { catalog } = state;

  async function respond(req: Request, res: Response, definition: EndpointDefinition, fault: ActiveFault | undefined) {
    switch (fault?.mode) {
      case undefined:
        return sendReply(res, definition.handle(req));
      case 'latency':
        if (await delay(res, fault.latencyMs)) await sendReply(res, definition.handle(req));
        return;
      case 'error':
        return sendReply(res, errorFaultReply(fault, definition.media));
      case 'malformed':
        return sendReply(res, malformedReply(definition.media));
      case 'truncated': {
        const reply = definition.handle(req);
        if (reply.status === 200) sendTruncated(res, reply);
        else await sendReply(res, reply);
        return;
      }
      case 'hang':
        // Never answer: the client's timeout (or stop(), which closes every connection) ends it.
        return;
      case 'invalid':
        return sendReply(res, invalidReply(['Simulated failure: the POS could not process the request']));
      case 'empty':
        return sendReply(res, definition.empty(req));
      case 'endless':
        return sendEndless(res, definition.media);
      case 'trickle':
        return sendTrickle(res, definition.handle(req), fault.intervalMs);
      case 'long-line':
        return sendLongLine(res, definition.media);
      case 'gzip-bomb':
        return sendGzipBomb(res, definition.media);
      case 'entities':
        return sendReply(res, entitiesReply(definition.media));
    }
  }

  function route(definition: EndpointDefinition): RequestHandler {
    return async (req, res) => {
      const fault = state.faults.take(definition.endpoint);
      if (fault !== undefined) options.onFault(req, fault);
      await respond(req, res, definition, fault);
    };
  }

  function unitNotFound(identifier: string): Reply {
    return invalidReply([`Unit "${identifier}" not found (use the unit's localId or code)`], 404);
  }

  const articleList: EndpointDefinition = {
    endpoint: 'article-list',
    media: 'json',
    handle(req) {
      const parsed = objectBody(req);
      if (!parsed.ok) return parsed.reply;
      const errors: string[] = [];
      const { limit, skip } = readPaging(parsed.body, errors);
      const priceOutput = readPriceOutput(parsed.body, errors);
      if (errors.length > 0) return invalidReply(errors);
      const items: PosArticle[] = [];
      for (const index of listedIndexes(state, skip, limit)) items.push(toPosArticle(state.article(index), priceOutput));
      // Exactly as documented: the article list answers `data` only, without total or isValid.
      return jsonReply({ data: { items } });
    },
    empty: () => jsonReply({ data: { items: [] } }),
  };

  const unitList: EndpointDefinition = {
    endpoint: 'unit-list',
    media: 'json',
    handle(req) {
      const parsed = objectBody(req);
      if (!parsed.ok) return parsed.reply;
      const errors: string[] = [];
      const warnings: string[] = [];
      const { limit, skip } = readPaging(parsed.body, errors);
      let fields: readonly UnitField[] = UNIT_FIELDS;
      const { select } = parsed.body;
      if (select !== undefined) {
        if (!Array.isArray(select) || !select.every((name) => typeof name === 'string')) {
          errors.push('select must be an array of field names');
        } else if (select.length > 0) {
          fields = UNIT_FIELDS.filter((field) => select.includes(field));
          for (const name of select) {
            if (!UNIT_FIELDS.some((field) => field === name)) warnings.push(`select: unknown field "${name}" ignored`);
          }
        }
      }
      if (errors.length > 0) return invalidReply(errors);
      const items = catalog.units.slice(skip, skip + limit).map((unit) => {
        const full = toPosUnit(unit);
        return Object.fromEntries(fields.map((field) => [field, full[field]]));
      });
      return jsonReply(okEnvelope({ total: catalog.units.length, items }, warnings));
    },
    empty: () => jsonReply(okEnvelope({ total: 0, items: [] })),
  };

  const movementList: EndpointDefinition = {
    endpoint: 'movement-list',
    media: 'json',
    handle(req) {
      const parsed = objectBody(req);
      if (!parsed.ok) return parsed.reply;
      const errors: string[] = [];
      const warnings: string[] = [];
      const { limit, skip } = readPaging(parsed.body, errors);
      const filter = parsed.body.filter === undefined ? {} : asRecord(parsed.body.filter);
      if (filter === undefined) return invalidReply([...errors, 'filter must be an object']);
      const fromMs = readDate(filter.dateFrom, 'dateFrom', false, errors);
      const toMs = readDate(filter.dateTo, 'dateTo', true, errors);
      const unitId = readOptionalString(filter, 'unit', 'filter.', errors);
      const article = readOptionalString(filter, 'article', 'filter.', errors);
      if (errors.length > 0) return invalidReply(errors);
      const unit = unitId === undefined ? undefined : catalog.findUnit(unitId);
      if (unitId !== undefined && unit === undefined) warnings.push(`filter.unit: no unit "${unitId}"`);
      if (fromMs !== undefined && toMs !== undefined && fromMs > toMs) warnings.push('filter.dateFrom is after filter.dateTo');
      const result = state.queryMovements({
        skip,
        limit,
        ...(fromMs !== undefined ? { fromMs } : {}),
        ...(toMs !== undefined ? { toMs } : {}),
        // Unit matches its _id (= localId) or code; an unknown unit matches nothing.
        ...(unitId !== undefined ? { unit: unit?.localId ?? unitId } : {}),
        ...(article !== undefined ? { article } : {}),
      });
      return jsonReply(okEnvelope(result, warnings));
    },
    empty: () => jsonReply(okEnvelope({ total: 0, items: [] })),
  };

  const clientGet: EndpointDefinition = {
    endpoint: 'client-get',
    media: 'json',
    handle(req) {
      const parsed = objectBody(req);
      if (!parsed.ok) return parsed.reply;
      const errors: string[] = [];
      const query: { -readonly [K in keyof ClientQuery]: ClientQuery[K] } = {};
      for (const name of ['_id', 'externalId', 'email', 'phone', 'clientCardIdentifier'] as const) {
        const value = readOptionalString(parsed.body, name, '', errors);
        if (value !== undefined) query[name] = value;
      }
      if (parsed.body.company !== undefined) {
        const company = asRecord(parsed.body.company);
        if (company === undefined) errors.push('company must be an object');
        else {
          const TIN = readOptionalString(company, 'TIN', 'company.', errors);
          const VATID = readOptionalString(company, 'VATID', 'company.', errors);
          if (TIN !== undefined || VATID !== undefined) {
            query.company = { ...(TIN !== undefined ? { TIN } : {}), ...(VATID !== undefined ? { VATID } : {}) };
          }
        }
      }
      if (errors.length > 0) return invalidReply(errors);
      if (Object.keys(query).length === 0) {
        return invalidReply([
          'Give at least one of _id, externalId, email, phone, clientCardIdentifier, company.TIN, company.VATID',
        ]);
      }
      const client = state.clients.find((candidate) => clientMatches(candidate, query));
      if (client === undefined) return jsonReply({ isValid: false, errors: ['Client not found'], data: null });
      // Shown with isValid, errors and data only (interface 2.1).
      return jsonReply({ isValid: true, errors: [], data: client });
    },
    empty: () => jsonReply({ isValid: true, errors: [], data: {} }),
  };

  const priceList: EndpointDefinition = {
    endpoint: 'price-list',
    media: 'xml',
    handle(req) {
      const identifier = String(req.params.identifier);
      const unit = catalog.findUnit(identifier);
      if (unit === undefined) return unitNotFound(identifier);
      return { kind: 'stream', status: 200, contentType: CONTENT_TYPES.xml, chunks: () => renderPriceList(state, unit) };
    },
    empty: () => textReply(EMPTY_PRICE_LIST, 200, 'xml'),
  };

  function stockExport(type: string, units: readonly SandboxUnit[], allUnits: boolean): Reply {
    return {
      kind: 'stream',
      status: 200,
      contentType: CONTENT_TYPES.text,
      chunks: () => renderStockExport(state, type, units, allUnits),
    };
  }

  function unknownType(type: string): Reply {
    return textReply(`Unknown stock export type "${type}"; use csv, txt or tsv\n`, 400);
  }

  const unitStockExport: EndpointDefinition = {
    endpoint: 'stock-export',
    media: 'text',
    handle(req) {
      const type = String(req.params.type);
      const identifier = String(req.params.identifier);
      if (!isStockExportType(type)) return unknownType(type);
      const unit = catalog.findUnit(identifier);
      if (unit === undefined) return unitNotFound(identifier);
      return stockExport(type, [unit], false);
    },
    empty: (req) => textReply(emptyStockExport(String(req.params.type), false), 200),
  };

  const allStockExport: EndpointDefinition = {
    endpoint: 'stock-export-all',
    media: 'text',
    handle(req) {
      const type = String(req.params.type);
      if (!isStockExportType(type)) return unknownType(type);
      return stockExport(type, catalog.units, true);
    },
    empty: (req) => textReply(emptyStockExport(String(req.params.type), true), 200),
  };

  const clientImport: EndpointDefinition = {
    endpoint: 'client-import',
    media: 'json',
    handle(req) {
      const parsed = readJsonBody(req);
      if (!parsed.ok) return invalidReply([parsed.message]);
      const items = importItems(parsed.value, 'clients');
      if (items === undefined || items.length === 0)
        return invalidReply(['Body must be a client, an array of clients or { items: [...] }']);
      const errors: string[] = [];
      const ids: string[] = [];
      items.forEach((item, position) => {
        const client = ImportedClientSchema.safeParse(item);
        if (!client.success) {
          errors.push(`items[${position}]: ${issueText(client.error)}`);
          return;
        }
        const data = client.data;
        const existing = state.clients.findIndex(
          (candidate) =>
            (data._id !== undefined && candidate._id === data._id) ||
            (data.externalId !== undefined && candidate.externalId === data.externalId),
        );
        const previous = existing >= 0 ? state.clients[existing] : undefined;
        const merged: PosClient = { ...previous, ...data, _id: data._id ?? previous?._id ?? state.mintId('client') };
        if (existing >= 0) state.clients[existing] = merged;
        else state.clients.push(merged);
        ids.push(merged._id);
      });
      return jsonReply({
        isValid: errors.length === 0,
        errors,
        warnings: [],
        messages: [`Imported ${ids.length} of ${items.length} clients`],
        data: { imported: ids.length, ids },
      });
    },
    empty: () => jsonReply(okEnvelope({ imported: 0, ids: [] })),
  };

  const assortmentImport: EndpointDefinition = {
    endpoint: 'assortment-import',
    media: 'json',
    handle(req) {
      const parsed = readJsonBody(req);
      if (!parsed.ok) return invalidReply([parsed.message]);
      const items = importItems(parsed.value, 'articles');
      if (items === undefined || items.length === 0)
        return invalidReply(['Body must be an article, an array of articles or { items: [...] }']);
      const errors: string[] = [];
      const warnings: string[] = [];
      let imported = 0;
      items.forEach((item, position) => {
        const article = ImportedArticleSchema.safeParse(item);
        if (!article.success) {
          errors.push(`items[${position}]: ${issueText(article.error)}`);
          return;
        }
        const index = catalog.indexOfLocalId(article.data.localId);
        if (index === undefined) {
          warnings.push(`items[${position}]: article "${article.data.localId}" is not in the simulated catalog; ignored`);
          return;
        }
        const { name, salesPrice } = article.data;
        state.overrideArticle(index, {
          ...(name !== undefined ? { name } : {}),
          ...(salesPrice !== undefined ? { salesPrice } : {}),
        });
        imported += 1;
      });
      return jsonReply({
        isValid: errors.length === 0,
        errors,
        warnings,
        messages: [`Imported ${imported} of ${items.length} articles`],
        data: { imported },
      });
    },
    empty: () => jsonReply(okEnvelope({ imported: 0 })),
  };

  const { auth } = options;
  const lists = Router();
  lists.post('/assortment/article/list', auth, route(articleList));
  lists.post('/stockholding/movement/list', auth, route(movementList));
  lists.post('/address-book/client/get', auth, route(clientGet));
  lists.post('/unit/list', auth, route(unitList));

  const exports = Router();
  // `eshop-update` per the interface; `shoptet-update` is the path of the vendor's public docs (docs/pos-interface.md, 4.5).
  exports.get('/unit/:identifier/price-list/export/eshop-update', auth, route(priceList));
  exports.get('/unit/:identifier/price-list/export/shoptet-update', auth, route(priceList));
  exports.get('/warehouse/stock/export/:type/:identifier', auth, route(unitStockExport));
  exports.get('/warehouse/stock/export/:type', auth, route(allStockExport));
  exports.post('/address-book/client/import', auth, route(clientImport));
  exports.post('/assortment/import', auth, route(assortmentImport));

  return { lists, exports };
}
