import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { posDocumentReaders } from '../../../src/adapters/pos/pos-document-readers.js';
import { openKeyv } from '../../../src/adapters/store/create-keyv.js';
import { createKeyvCatalogStore } from '../../../src/adapters/store/keyv-catalog-store.js';
import type { CatalogSource } from '../../../src/core/catalog/catalog-source.js';
import { type CatalogMeta, createCatalogService } from '../../../src/services/catalog/catalog-service.js';
import { openStoredCatalog } from '../../../src/services/catalog/catalog-start.js';
import { createInThreadCatalogWorkers } from '../../../src/services/catalog/catalog-workers.js';
import { createFakePosClient, demoData, type FakePosData, posDown } from '../../fakes/fake-pos-client.js';

const dir = mkdtempSync(join(tmpdir(), 'catalog-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const POS: CatalogSource = {
  id: 'pos:https://pos.example;key=0a1b2c',
  label: 'the POS at https://pos.example (API key #0a1b2c)',
};
const SANDBOX: CatalogSource = {
  id: 'sandbox:seed=42;units=3;articles=500',
  label: 'the built-in sandbox (seed 42, 3 units, 500 articles)',
};

interface Logged {
  readonly level: string;
  readonly meta: object;
  readonly message: string;
}

function createLogger(lines: Logged[]) {
  const log = (level: string) => (meta: object, message: string) => lines.push({ level, meta, message });
  return { info: log('info'), warn: log('warn'), error: log('error') };
}

function open(file: string, source: CatalogSource, data: FakePosData) {
  const { keyv } = openKeyv(`sqlite://${join(dir, file)}`);
  const pos = createFakePosClient(data);
  const catalog = createCatalogService({
    workers: createInThreadCatalogWorkers({ pos, documents: posDocumentReaders }),
    store: createKeyvCatalogStore<CatalogMeta>(keyv, { source }),
    internalStore: createKeyvCatalogStore<{ version: string }>(keyv, { source, prefix: 'internal' }),
    logger: pino({ level: 'silent' }),
    now: () => new Date(),
    options: {
      currency: 'CZK',
      primaryUnit: undefined,
      unknownStockAvailability: 'out_of_stock',
      priceListKey: 'auto',
      stockKey: 'auto',
      stockColumns: {},
      maxShrink: 0.5,
      concurrency: 2,
    },
  });
  const lines: Logged[] = [];
  const start = () =>
    openStoredCatalog({ catalog, source, listUnits: async () => (await pos.listUnits()).items, logger: createLogger(lines) });
  return { catalog, keyv, lines, start, close: () => keyv.disconnect() };
}

/** A store as the release before sources were recorded left it: the same keys, no source on the pointer. */
async function forgetSource(file: string, data: FakePosData): Promise<string> {
  const first = open(file, POS, data);
  const report = await first.catalog.syncCatalog();
  for (const prefix of ['catalog', 'internal']) {
    const { source: _recorded, ...pointer } = (await first.keyv.get(`${prefix}:current`)) as Record<string, unknown>;
    await first.keyv.set(`${prefix}:current`, pointer);
  }
  await first.close();
  return report.version ?? '';
}

describe('services/catalog-start', () => {
  it('serves a stored catalog of the configured source at once', async () => {
    const first = open('own.sqlite', POS, demoData(20));
    const { version } = await first.catalog.syncCatalog();
    await first.close();

    const again = open('own.sqlite', POS, demoData(20));
    const start = await again.start();
    await start.settled;

    expect(again.catalog.current()?.version).toBe(version);
    expect(start.notServed()).toBeUndefined();
    expect(again.lines).toEqual([
      {
        level: 'info',
        meta: { version, products: 20, source: POS.label },
        message: 'serving the stored catalog while the start sync runs',
      },
    ]);
    await again.close();
  });

  it('never serves another source’s catalog: logs both sources once, and tells what is not served until its own first catalog', async () => {
    const sandbox = open('switch.sqlite', SANDBOX, demoData(30));
    const { version } = await sandbox.catalog.syncCatalog();
    await sandbox.close();

    const pos = open('switch.sqlite', POS, demoData(12));
    const start = await pos.start();
    await start.settled;

    expect(pos.catalog.current()).toBeUndefined();
    expect(start.notServed()).toEqual({ source: SANDBOX.label, version, products: 30 });
    expect(pos.lines).toHaveLength(1);
    expect(pos.lines[0]).toMatchObject({
      level: 'warn',
      meta: { stored: SANDBOX.label, storedVersion: version, configured: POS.label },
    });
    expect(pos.lines[0]?.message).toContain('not served');

    expect((await pos.catalog.syncCatalog()).outcome).toBe('published');
    expect(pos.catalog.current()?.products).toHaveLength(12);
    expect(start.notServed()).toBeUndefined();
    await pos.close();
  });

  it('serves a catalog stored before sources were recorded once the POS’s units show it is this POS’s, and records the source', async () => {
    const version = await forgetSource('upgrade.sqlite', demoData(25));

    const upgraded = open('upgrade.sqlite', POS, demoData(25));
    const start = await upgraded.start();
    expect(start.notServed()).toEqual({
      source: 'an unknown source (stored before sources were recorded)',
      version,
      products: 25,
    });
    await start.settled;

    expect(upgraded.catalog.current()?.version).toBe(version);
    expect(start.notServed()).toBeUndefined();
    expect(await upgraded.catalog.storedCatalog()).toMatchObject({ version, own: true, source: POS });
    expect(await upgraded.keyv.get('internal:current')).toMatchObject({ source: POS });
    expect(upgraded.lines.at(-1)).toMatchObject({ level: 'info', meta: { products: 25 } });
    await upgraded.close();

    // Recorded: the next start serves it at once.
    const later = open('upgrade.sqlite', POS, demoData(25));
    await (await later.start()).settled;
    expect(later.catalog.current()?.version).toBe(version);
    await later.close();
  });

  it('does not serve a catalog stored before sources were recorded whose units are not the POS’s', async () => {
    await forgetSource('other-units.sqlite', demoData(25));
    const data = demoData(25);
    data.units = [{ localId: 'u-9', code: 'U1', name: 'Jiná prodejna', priceLists: [] }];

    const other = open('other-units.sqlite', POS, data);
    const start = await other.start();
    await start.settled;

    expect(other.catalog.current()).toBeUndefined();
    expect(start.notServed()?.source).toBe('an unknown source (stored before sources were recorded)');
    expect(other.lines.at(-1)).toMatchObject({ level: 'warn' });
    expect(other.lines.at(-1)?.message).toContain("units are not the POS's");
    expect((await other.catalog.storedCatalog())?.source).toBeUndefined();
    await other.close();
  });

  it('does not serve a catalog stored before sources were recorded while the POS cannot be asked', async () => {
    await forgetSource('pos-down.sqlite', demoData(10));
    const data = demoData(10);
    data.failWith = posDown();

    const down = open('pos-down.sqlite', POS, data);
    const start = await down.start();
    await start.settled;

    expect(down.catalog.current()).toBeUndefined();
    expect(down.lines.at(-1)?.message).toContain('could not be asked for its units');
    await down.close();
  });

  it('serves a catalog read with the account’s previous key once the POS’s units match, and not another account’s', async () => {
    const oldKey: CatalogSource = {
      id: 'pos:https://pos.example;key=99ff00',
      label: 'the POS at https://pos.example (API key #99ff00)',
    };
    const first = open('new-key.sqlite', oldKey, demoData(15));
    const { version } = await first.catalog.syncCatalog();
    await first.close();

    const otherAccount = demoData(15);
    otherAccount.units = [{ localId: 'u-77', code: 'U1', name: 'Jiný obchod', priceLists: [] }];
    const other = open('new-key.sqlite', POS, otherAccount);
    await (await other.start()).settled;
    expect(other.catalog.current()).toBeUndefined();
    expect(other.lines.at(-1)?.message).toContain("units are not the POS's");
    await other.close();

    const rotated = open('new-key.sqlite', POS, demoData(15));
    const start = await rotated.start();
    // A label stored before the key's hash was left out of it is shown without the hash.
    expect(start.notServed()).toEqual({ source: 'the POS at https://pos.example', version, products: 15 });
    await start.settled;

    expect(rotated.catalog.current()?.version).toBe(version);
    expect(await rotated.catalog.storedCatalog()).toMatchObject({ version, own: true, source: POS });
    await rotated.close();
  });

  it('does not ask the POS about a catalog of another host or the sandbox', async () => {
    const first = open('other-host.sqlite', { id: 'pos:https://elsewhere.example;key=0a1b2c', label: 'elsewhere' }, demoData(5));
    await first.catalog.syncCatalog();
    await first.close();
    let asked = 0;
    const data = demoData(5);
    const pos = open('other-host.sqlite', POS, data);
    const start = await openStoredCatalog({
      catalog: pos.catalog,
      source: POS,
      listUnits: async () => {
        asked += 1;
        return data.units;
      },
      logger: createLogger(pos.lines),
    });
    await start.settled;

    expect(asked).toBe(0);
    expect(pos.catalog.current()).toBeUndefined();
    await pos.close();
  });

  it('leaves nothing to adopt once a sync from the POS has stored its own catalog', async () => {
    const version = await forgetSource('race.sqlite', demoData(10));
    const racing = open('race.sqlite', POS, demoData(11));

    expect((await racing.catalog.syncCatalog()).outcome).toBe('published');
    const served = racing.catalog.current()?.version;

    expect(await racing.catalog.adoptStored(version, undefined)).toBeUndefined();
    expect(racing.catalog.current()?.version).toBe(served);
    await racing.close();
  });
});
