import type { Request } from 'express';
import { type EndpointDefinition, unitNotFound } from './pos-endpoint.js';
import { EMPTY_PRICE_LIST, renderPriceList } from './render-price-list.js';
import { emptyStockExport, isStockExportType, renderStockExport } from './render-stock-export.js';
import type { SandboxUnit } from './sandbox-catalog.js';
import { CONTENT_TYPES, type Reply, textReply } from './sandbox-replies.js';
import type { SandboxState } from './sandbox-state.js';

/** The streamed documents of interface 4.5-4.7: a unit's price-list XML and the stock exports. */

export function priceListEndpoint(state: SandboxState): EndpointDefinition {
  return {
    endpoint: 'price-list',
    media: 'xml',
    handle(req) {
      const identifier = String(req.params.identifier);
      const unit = state.catalog.findUnit(identifier);
      if (unit === undefined) return unitNotFound(identifier);
      return { kind: 'stream', status: 200, contentType: CONTENT_TYPES.xml, chunks: () => renderPriceList(state, unit) };
    },
    empty: () => textReply(EMPTY_PRICE_LIST, 200, 'xml'),
  };
}

function stockExport(state: SandboxState, type: string, units: readonly SandboxUnit[], allUnits: boolean): Reply {
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

export function unitStockExportEndpoint(state: SandboxState): EndpointDefinition {
  return {
    endpoint: 'stock-export',
    media: 'text',
    handle(req) {
      const type = String(req.params.type);
      const identifier = String(req.params.identifier);
      if (!isStockExportType(type)) return unknownType(type);
      const unit = state.catalog.findUnit(identifier);
      if (unit === undefined) return unitNotFound(identifier);
      return stockExport(state, type, [unit], false);
    },
    empty: (req: Request) => textReply(emptyStockExport(String(req.params.type), false), 200),
  };
}

export function allStockExportEndpoint(state: SandboxState): EndpointDefinition {
  return {
    endpoint: 'stock-export-all',
    media: 'text',
    handle(req) {
      const type = String(req.params.type);
      if (!isStockExportType(type)) return unknownType(type);
      return stockExport(state, type, state.catalog.units, true);
    },
    empty: (req: Request) => textReply(emptyStockExport(String(req.params.type), true), 200),
  };
}
