import { describe, expect, it } from 'vitest';
import { posDocumentReaders } from '../../../../src/adapters/pos/pos-document-readers.js';
import { documentLimits } from '../../../../src/core/catalog/document-limits.js';
import type { SourceUnit } from '../../../../src/core/catalog/source.js';
import { catalogServiceOptions } from '../../../../src/services/catalog/catalog-types.js';
import { type ReadCatalogInput, readCatalog } from '../../../../src/services/catalog/read-catalog.js';
import {
  LOCAL_DOCUMENTS,
  readUnitDocumentState,
  readUnitDocuments,
  type UnitDocument,
  type UnitDocumentEvent,
  type UnitDocumentRequest,
  unitDocumentOf,
} from '../../../../src/services/catalog/unit-documents.js';
import { createFakePosClient, demoData } from '../../../fakes/fake-pos-client.js';
import { createTestConfig } from '../../../helpers/test-config.js';

const LIMITS = documentLimits(100, { rowsPerArticle: 2, maxDocumentBytes: 1024 * 1024 });

function requestsFor(units: readonly SourceUnit[]): UnitDocumentRequest[] {
  return [
    ...units.map((unit) => ({ kind: 'stock' as const, unit, limits: LIMITS, stockColumns: {} })),
    ...units.map((unit) => ({ kind: 'price-list' as const, unit, limits: LIMITS, stockColumns: {} })),
  ];
}

const UNITS: SourceUnit[] = ['U1', 'U2', 'U3'].map((code) => ({ localId: code, code, name: code, priceLists: [] }));

/** A reader whose reads end only when the test says so, and which counts what it holds at once. */
function heldReader(name: string, log: string[]) {
  const waiting: (() => void)[] = [];
  let inFlight = 0;
  let most = 0;
  return {
    read(request: UnitDocumentRequest): Promise<UnitDocument> {
      inFlight += 1;
      most = Math.max(most, inFlight);
      log.push(`${name} ${request.kind} ${request.unit.code}`);
      return new Promise((resolve) => {
        waiting.push(() => {
          inFlight -= 1;
          resolve(emptyDocument(request));
        });
      });
    },
    /** Ends the oldest read in flight; false when none is. */
    finishOne(): boolean {
      const next = waiting.shift();
      next?.();
      return next !== undefined;
    },
    get most() {
      return most;
    },
  };
}

function emptyDocument(request: UnitDocumentRequest): UnitDocument {
  return unitDocumentOf(
    request.kind === 'stock'
      ? {
          kind: 'stock',
          rows: { length: 0, codes: { rows: 0, blocks: [], pages: [], pageUsed: 0 }, quantities: [], lines: [] },
          report: { rows: 0, header: [], skippedCount: 0, skipped: [] },
          ms: 5,
        }
      : {
          kind: 'price-list',
          rows: { length: 0, blocks: [], codes: { rows: 0, blocks: [], pages: [], pageUsed: 0 }, texts: [] },
          report: { rows: 0, skippedCount: 0, warningCount: 0, skipped: [], warnings: [] },
          ms: 7,
        },
  );
}

/** Lets every pending promise callback run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

describe('services/catalog/unit-documents', () => {
  // The helper reads at most two at once (its parse is CPU-bound too), this thread one, as it also merges: three of
  // the four slots.
  it('reads every document once in order, the helper thread two at a time and this thread one', async () => {
    const log: string[] = [];
    const local = heldReader('here', log);
    const helper = heldReader('helper', log);
    const used: string[] = [];
    const events: UnitDocumentEvent[] = [];
    const done = readUnitDocuments(
      requestsFor(UNITS),
      { local: local.read, helper: (request) => helper.read(request), concurrency: 4, emit: (event) => events.push(event) },
      ({ kind, unit }) => {
        used.push(`${kind} ${unit.code}`);
      },
    );
    await settle();
    expect(log).toEqual(['helper stock U1', 'helper stock U2', 'here stock U3']);

    while (local.finishOne() || helper.finishOne()) await settle();
    await done;

    expect(used).toHaveLength(6);
    expect(new Set(used).size).toBe(6);
    expect([local.most, helper.most]).toEqual([1, 2]);
    expect(events.filter((event) => event.type === 'phase')).toHaveLength(6);
    expect(events).toContainEqual({ type: 'phase', phase: 'price-list', ms: 7, unit: 'U1' });
  });

  // At most two at once whatever the concurrency: the parse is CPU-bound, and more documents would only take
  // turns on the thread, each holding its rows.
  it.each([
    [1, 1],
    [2, 2],
    [4, LOCAL_DOCUMENTS],
  ])('reads everything in this thread with concurrency %i, %i at a time, when there is no helper', async (concurrency, most) => {
    const log: string[] = [];
    const local = heldReader('here', log);
    const done = readUnitDocuments(requestsFor(UNITS), { local: local.read, concurrency, emit: () => {} }, () => {});
    await settle();
    expect(log).toEqual(['here stock U1', 'here stock U2'].slice(0, most));

    while (local.finishOne()) await settle();
    await done;

    expect(log).toHaveLength(6);
    expect(local.most).toBe(most);
  });

  it('rejects with the first failure and starts no document after it', async () => {
    const started: string[] = [];
    const failing = async (request: UnitDocumentRequest): Promise<UnitDocument> => {
      started.push(`${request.kind} ${request.unit.code}`);
      if (request.unit.code === 'U2') throw Object.assign(new Error('POS down'), { code: 'POS_UNAVAILABLE' });
      return emptyDocument(request);
    };

    await expect(
      readUnitDocuments(requestsFor(UNITS), { local: failing, concurrency: 1, emit: () => {} }, () => {}),
    ).rejects.toMatchObject({ code: 'POS_UNAVAILABLE' });
    expect(started).toEqual(['stock U1', 'stock U2']);
  });

  it('merges the same catalog when a helper reads the documents, whatever order they arrive in', async () => {
    // Three units of the demo catalog: the same items, other prices and quantities.
    const demo = demoData(60);
    const data = {
      ...demo,
      units: UNITS,
      priceLists: Object.fromEntries(
        UNITS.map((unit, at) => [unit.code, (demo.priceLists['U1'] ?? '').replaceAll('.00</PRICE_VAT>', `.${at}0</PRICE_VAT>`)]),
      ),
      stock: Object.fromEntries(
        UNITS.map((unit, at) => [unit.code, (demo.stock['U1'] ?? '').replaceAll(',5\r\n', `,${at}\r\n`)]),
      ),
    };
    const source = { pos: createFakePosClient(data), documents: posDocumentReaders };
    const { maxShrink: _guardOnly, ...options } = catalogServiceOptions(createTestConfig({ POS_CONCURRENCY: '4' }));
    const input: ReadCatalogInput = { version: 'v-20261129T100000000Z-00000000', startedAt: '2026-11-29T10:00:00.000Z', options };
    // The helper's stock exports come last: each unit's price list must still be merged after its export.
    let helped = 0;
    const helper = async (request: UnitDocumentRequest) => {
      helped += 1;
      if (request.kind === 'stock') await new Promise((resolve) => setTimeout(resolve, 30));
      return unitDocumentOf(structuredClone(await readUnitDocumentState(source, request)));
    };

    const alone = await readCatalog(source, input);
    const helpedOut = await readCatalog(source, input, () => {}, {
      documentThread: () => ({ read: helper, close: async () => {} }),
    });

    if (!alone.ok || !helpedOut.ok) throw new Error('a read failed');
    expect(helped).toBeGreaterThan(0);
    expect(helpedOut.fingerprint).toBe(alone.fingerprint);
    expect(helpedOut.sources).toEqual(alone.sources);
    expect(helpedOut.merge).toEqual(alone.merge);
  });
});
