import type { EndpointDefinition } from './pos-endpoint.js';
import { asRecord, objectBody, readDate, readOptionalString, readPaging, readPriceOutput } from './pos-request-reading.js';
import type { PosArticle, PosUnit } from './pos-resources.js';
import { type SandboxUnit, toPosArticle } from './sandbox-catalog.js';
import { type ClientQuery, clientMatches } from './sandbox-clients.js';
import { invalidReply, jsonReply, okEnvelope } from './sandbox-replies.js';
import type { SandboxState } from './sandbox-state.js';

/** The JSON reads of interface 4.1-4.4: article, unit and movement lists, and client get. */

const UNIT_FIELDS = ['code', 'name', 'localId', 'priceLists'] as const;
type UnitField = (typeof UNIT_FIELDS)[number];

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

export function articleListEndpoint(state: SandboxState): EndpointDefinition {
  return {
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
}

export function unitListEndpoint(state: SandboxState): EndpointDefinition {
  const { catalog } = state;
  return {
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
}

export function movementListEndpoint(state: SandboxState): EndpointDefinition {
  const { catalog } = state;
  return {
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
}

export function clientGetEndpoint(state: SandboxState): EndpointDefinition {
  return {
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
}
