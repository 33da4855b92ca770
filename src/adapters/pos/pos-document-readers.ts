import type { PosDocumentReaders } from '../../services/catalog/pos-port.js';
import { createPriceListParser } from './price-list-xml.js';
import { readStockExport } from './stock-export.js';

/** The POS's document formats as the catalog service reads them (its `PosDocumentReaders` port). */
export const posDocumentReaders: PosDocumentReaders = {
  createPriceListParser,
  readStockExport: (input, onRow, options) => readStockExport(input, onRow, options),
};
