import { DocumentTooLargeError, describeByteLimit } from '../../core/catalog/document-limits.js';
import type { SourceUnit } from '../../core/catalog/source.js';
import type { DocumentRequestOptions, PosBodyStream } from '../../services/catalog/pos-port.js';
import type { EnvelopeReading } from './pos-envelope-reading.js';
import { PosResponseInvalidError } from './pos-errors.js';
import { isJsonMediaType, readCapped, toBodyStream } from './pos-responses.js';
import type { PosTransport } from './pos-transport.js';

/**
 * The documents of interface 4.5-4.7: a unit's price-list XML, streamed to the parser, and the stock
 * exports, read whole under a size limit. Either may come back as a refusing JSON envelope instead.
 */

export interface PosExportReads {
  fetchPriceListXml(unit: SourceUnit): Promise<PosBodyStream>;
  fetchStockExport(unit: SourceUnit, options?: DocumentRequestOptions): Promise<Uint8Array>;
  fetchStockExportAll(): Promise<Uint8Array>;
}

export interface PosExportSettings {
  readonly exportPathPrefix: string;
  /** `POS_PRICE_LIST_EXPORT`: `eshop-update` (the interface) or `shoptet-update` (the vendor's pages). */
  readonly priceListExport: 'eshop-update' | 'shoptet-update';
  readonly unitIdentifier: 'localId' | 'code';
  readonly stockExportType: string;
  readonly maxStockExportBytes: number;
}

export function createExportReads(
  transport: PosTransport,
  envelopes: EnvelopeReading,
  settings: PosExportSettings,
  redact: (text: string) => string,
): PosExportReads {
  function unitIdentifier(unit: SourceUnit, path: string): string {
    const identifier = unit[settings.unitIdentifier];
    if (identifier.trim() === '') {
      throw new PosResponseInvalidError(`unit has an empty ${settings.unitIdentifier}`, { method: 'GET', path });
    }
    return encodeURIComponent(identifier);
  }

  async function fetchStock(path: string, options: DocumentRequestOptions = {}): Promise<Uint8Array> {
    const operation = transport.exportOperation(path, 'text/plain, text/csv;q=0.9, */*;q=0.1');
    const limit = Math.min(settings.maxStockExportBytes, options.maxBytes ?? Number.POSITIVE_INFINITY);
    return transport.call(
      operation,
      async (response) => {
        const where = { method: operation.method, path: operation.path, status: response.statusCode };
        const tooLarge = () =>
          new DocumentTooLargeError(`the stock export (${operation.path}) is larger than ${describeByteLimit(limit)}`);
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > limit) {
          response.body.destroy();
          throw tooLarge();
        }
        const bytes = await readCapped(response.body, limit, 'fail', tooLarge);
        const rejected = isJsonMediaType(response.headers['content-type'])
          ? envelopes.envelopeRejection(bytes, where)
          : undefined;
        if (rejected !== undefined) throw rejected;
        return bytes;
      },
      options.signal,
    );
  }

  return {
    async fetchPriceListXml(unit) {
      const template = `/unit/{identifier}/price-list/export/${settings.priceListExport}`;
      const identifier = unitIdentifier(unit, settings.exportPathPrefix + template);
      const operation = transport.exportOperation(
        `/unit/${identifier}/price-list/export/${settings.priceListExport}`,
        'application/xml, text/xml;q=0.9, */*;q=0.1',
      );
      // Retries cover everything up to the response headers; once the body flows it belongs to the parser.
      return transport.call(operation, async (response) =>
        toBodyStream(response, operation, redact, (bytes, where) => envelopes.envelopeRejection(bytes, where)),
      );
    },

    async fetchStockExport(unit, options = {}) {
      const template = '/warehouse/stock/export/{type}/{identifier}';
      const identifier = unitIdentifier(unit, settings.exportPathPrefix + template);
      return fetchStock(`/warehouse/stock/export/${encodeURIComponent(settings.stockExportType)}/${identifier}`, options);
    },

    async fetchStockExportAll() {
      return fetchStock(`/warehouse/stock/export/${encodeURIComponent(settings.stockExportType)}`);
    },
  };
}
