import { describe, expect, it } from 'vitest';
import { posDocumentReaders } from '../../../../src/adapters/pos/pos-document-readers.js';
import { documentLimits } from '../../../../src/core/catalog/document-limits.js';
import type { SourceUnit } from '../../../../src/core/catalog/source.js';
import { type FamilyIdentity, readStockExport } from '../../../../src/services/catalog/resolve-stock-export.js';
import { createFakePosClient, demoData } from '../../../fakes/fake-pos-client.js';
import { productIdentityIndex } from '../../../helpers/product-identity-index.js';

const SETTINGS = { rowsPerArticle: 2, maxDocumentBytes: 1024 * 1024 };
const UNIT: SourceUnit = { localId: 'u-1', code: 'U1', name: 'Prodejna', priceLists: [] };

/** The family of the fake POS's articles a-1…a-N (PLU 1000+i), as a full sync would describe it. */
function familyOf(id: string, count: number): FamilyIdentity {
  const products = Array.from({ length: count }, (_, i) => ({ id: `a-${i + 1}`, plu: 1001 + i }));
  return { id, index: productIdentityIndex(products) };
}

describe('services/catalog/ a stock re-read, fetched and resolved in one place', () => {
  it("fetches the unit's export and resolves its rows to the family's product positions", async () => {
    const pos = createFakePosClient(demoData(4));

    const output = await readStockExport(
      { pos, documents: posDocumentReaders },
      { unit: UNIT, family: familyOf('f1', 4), stockKey: 'auto', stockColumns: {}, limits: documentLimits(4, SETTINGS) },
    );

    expect(output.familyId).toBe('f1');
    expect(output.report.rows).toBe(4);
    expect([...output.resolved.positions]).toEqual([0, 1, 2, 3]);
  });

  it("asks the POS client for at most the export's byte limit", async () => {
    const pos = createFakePosClient(demoData(4));
    const limits = { ...documentLimits(4, SETTINGS), maxStockExportBytes: 8 };
    let asked: number | undefined;
    const counting = {
      ...pos,
      fetchStockExport: (unit: SourceUnit, options?: { maxBytes?: number }) => {
        asked = options?.maxBytes;
        return pos.fetchStockExport(unit);
      },
    };

    await readStockExport(
      { pos: counting, documents: posDocumentReaders },
      { unit: UNIT, family: familyOf('f1', 4), stockKey: 'auto', stockColumns: {}, limits },
    );

    expect(asked).toBe(8);
  });
});
