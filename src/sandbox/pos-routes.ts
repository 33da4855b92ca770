import { type Request, type RequestHandler, Router } from 'express';
import type { ActiveFault } from './fault-injector.js';
import { type EndpointDefinition, endpointRoute } from './pos-endpoint.js';
import { allStockExportEndpoint, priceListEndpoint, unitStockExportEndpoint } from './pos-export-endpoints.js';
import { assortmentImportEndpoint, clientImportEndpoint } from './pos-import-endpoints.js';
import { articleListEndpoint, clientGetEndpoint, movementListEndpoint, unitListEndpoint } from './pos-list-endpoints.js';
import type { SandboxState } from './sandbox-state.js';

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

/** The operations of interface part 4, each behind the fault injector. */
export function createPosRoutes(state: SandboxState, options: PosRoutesOptions): PosRoutes {
  const { auth } = options;
  const route = (definition: EndpointDefinition) => endpointRoute(state, options.onFault, definition);

  const lists = Router();
  lists.post('/assortment/article/list', auth, route(articleListEndpoint(state)));
  lists.post('/stockholding/movement/list', auth, route(movementListEndpoint(state)));
  lists.post('/address-book/client/get', auth, route(clientGetEndpoint(state)));
  lists.post('/unit/list', auth, route(unitListEndpoint(state)));

  const exports = Router();
  const priceList = route(priceListEndpoint(state));
  // `eshop-update` per the interface; `shoptet-update` is the path of the vendor's public docs (docs/pos-interface.md, 4.5).
  exports.get('/unit/:identifier/price-list/export/eshop-update', auth, priceList);
  exports.get('/unit/:identifier/price-list/export/shoptet-update', auth, priceList);
  exports.get('/warehouse/stock/export/:type/:identifier', auth, route(unitStockExportEndpoint(state)));
  exports.get('/warehouse/stock/export/:type', auth, route(allStockExportEndpoint(state)));
  exports.post('/address-book/client/import', auth, route(clientImportEndpoint(state)));
  exports.post('/assortment/import', auth, route(assortmentImportEndpoint(state)));

  return { lists, exports };
}
