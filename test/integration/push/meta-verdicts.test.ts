import { Keyv } from 'keyv';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryPushOutbox } from '../../../src/adapters/push/memory-push-outbox.js';
import { createMetaClient, type MetaClient } from '../../../src/adapters/push/meta-client.js';
import { createKeyvMetaVerdictStore } from '../../../src/adapters/store/keyv-meta-verdict-store.js';
import type { PushOutbox } from '../../../src/core/push/outbox.js';
import { createMetaBatchChecks, type MetaBatchChecks } from '../../../src/services/push/meta-batch-checks.js';
import { createMetaVerdicts, type MetaVerdictStore, type MetaVerdicts } from '../../../src/services/push/meta-verdicts.js';
import { type MetaServer, startMetaServer } from '../../fakes/channels/meta-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { metaBatchItem } from './meta-batch-items.js';

/**
 * Meta's verdicts against the fake Graph API (docs/channel-push.md#metas-verdicts): an item Meta refuses in the
 * call or finds invalid while ingesting is kept against the item with Meta's message, a later clean batch
 * clears it; the catalog's diagnostics are read page by page; a follower shows what the leader kept.
 */

const TOKEN = 'EAAmeta-verdict-token';
const CATALOG = '987654321';
const SILENT = { info: () => undefined, warn: () => undefined, error: () => undefined };

let server: MetaServer;
let client: MetaClient;
let outbox: PushOutbox;
let checks: MetaBatchChecks;
let verdicts: MetaVerdicts;
let keyv: Keyv;
let clock: number;

/** Meta's verdicts on `store` (a Keyv, or a store of the test's own), leading while `leader` says so. */
function verdictsOn(store: Keyv | MetaVerdictStore, leader: boolean | (() => boolean)): MetaVerdicts {
  return createMetaVerdicts({
    store: store instanceof Keyv ? createKeyvMetaVerdictStore(store, { catalogId: CATALOG }) : store,
    readDiagnostics: () => client.diagnostics(),
    isLeader: typeof leader === 'function' ? leader : () => leader,
    intervalMs: 86_400_000,
    firstDelayMs: 86_400_000,
    followMs: 86_400_000,
    now: () => clock,
    logger: pino({ level: 'silent' }),
  });
}

beforeEach(async () => {
  server = await startMetaServer({ token: TOKEN, catalogId: CATALOG, items: { a: { id: 'a' }, b: { id: 'b' }, c: { id: 'c' } } });
  outbox = createMemoryPushOutbox();
  await outbox.enqueue(undefined, 'v1', []);
  clock = Date.parse('2026-11-30T08:00:00Z');
  keyv = new Keyv();
  verdicts = verdictsOn(keyv, true);
  checks = createMetaBatchChecks({
    outbox,
    check: (handle) => client.checkBatchStatus(handle),
    now: () => clock,
    intervalMs: 30_000,
    onVerdicts: (batch) => verdicts.record(batch),
    logger: SILENT,
  });
  client = createMetaClient({
    graphUrl: server.graphUrl,
    catalogId: CATALOG,
    token: TOKEN,
    timeoutMs: 5000,
    onHandle: (handle, targets, settling) => checks.track(handle, targets, settling),
    onRefused: (refused, gone) => void verdicts.record({ invalid: refused, valid: gone, sentAt: new Date(clock).toISOString() }),
  });
});

afterEach(async () => {
  await verdicts.stop();
  await client.close();
  await server.close();
  await outbox.close();
});

describe("Meta's verdicts", () => {
  it("keeps Meta's message against an item refused in the call or at ingest, and clears it after a clean batch", async () => {
    server.invalidIds.add('a');
    server.ingestInvalidIds.add('b');
    server.ingestMessages.set('b', 'The image URL could not be downloaded.');
    await client.send([
      metaBatchItem('a', 'availability'),
      metaBatchItem('b', 'availability'),
      metaBatchItem('c', 'availability'),
    ]);
    expect(await waitFor(() => verdicts.item('a') !== undefined)).toBe(true);
    expect(verdicts.item('a')).toEqual({
      message: 'The item violates the commerce policies.',
      at: '2026-11-30T08:00:00.000Z',
      sentAt: '2026-11-30T08:00:00.000Z',
    });
    clock += 30_000;
    await checks.checkDue();
    expect(verdicts.item('b')).toEqual({
      message: 'The image URL could not be downloaded.',
      at: '2026-11-30T08:00:30.000Z',
      sentAt: '2026-11-30T08:00:00.000Z',
    });
    expect(verdicts.item('c')).toBeUndefined();
    expect(verdicts.summary()).toMatchObject({ invalid: 2 });
    expect(verdicts.summary().topMessages.map((top) => top.message)).toEqual([
      'The image URL could not be downloaded.',
      'The item violates the commerce policies.',
    ]);

    // Kept in the store: a follower (another instance of the group) shows the same.
    const follower = verdictsOn(keyv, false);
    follower.start();
    expect(await waitFor(() => follower.item('b') !== undefined)).toBe(true);
    expect(follower.summary().invalid).toBe(2);
    await follower.record({ invalid: [{ id: 'c', message: 'x' }], valid: [], sentAt: '2026-11-30T09:00:00.000Z' });
    expect(follower.item('c')).toBeUndefined();
    await follower.stop();

    // A clean field update says nothing of the whole item: the errors stay.
    await client.send([metaBatchItem('a', 'availability'), metaBatchItem('b', 'availability')]);
    clock += 30_000;
    await checks.checkDue();
    expect(verdicts.summary().invalid).toBe(2);

    // Both sent again whole and taken clean: their errors clear.
    await client.send([metaBatchItem('a', 'whole'), metaBatchItem('b', 'whole')]);
    clock += 30_000;
    await checks.checkDue();
    expect(verdicts.item('a')).toBeUndefined();
    expect(verdicts.item('b')).toBeUndefined();
    expect(verdicts.summary().invalid).toBe(0);
  });

  it("an older batch's clean word never clears a newer batch's refusal", async () => {
    await client.send([metaBatchItem('a', 'whole')]);
    clock += 10_000;
    server.invalidIds.add('a');
    await client.send([metaBatchItem('a', 'whole')]);
    expect(await waitFor(() => verdicts.item('a') !== undefined)).toBe(true);
    clock += 30_000;
    await checks.checkDue();
    expect(verdicts.item('a')?.message).toBe('The item violates the commerce policies.');
  });

  it('a deletion Meta takes clears the error of an item that left the catalog', async () => {
    server.invalidIds.add('c');
    await client.send([metaBatchItem('c', 'whole')]);
    expect(await waitFor(() => verdicts.item('c') !== undefined)).toBe(true);
    clock += 1_000;
    await client.send([metaBatchItem('c', 'remove', 2)]);
    clock += 30_000;
    await checks.checkDue();
    expect(verdicts.item('c')).toBeUndefined();
  });

  it('a refused deletion settles the error of an item that left the catalog', async () => {
    server.invalidIds.add('c');
    await client.send([metaBatchItem('c', 'whole')]);
    expect(await waitFor(() => verdicts.item('c') !== undefined)).toBe(true);
    clock += 1_000;
    server.invalidIds.add('c');
    await client.send([metaBatchItem('c', 'remove', 2)]);
    expect(await waitFor(() => verdicts.item('c') === undefined)).toBe(true);
  });

  it('a store that cannot be read keeps nothing rather than writing over it, and throws nothing', async () => {
    const broken = verdictsOn(
      {
        items: async () => {
          throw new Error('store down');
        },
        saveItems: async () => {
          throw new Error('must not write over a store not read');
        },
        diagnostics: async () => undefined,
        saveDiagnostics: async () => undefined,
      },
      true,
    );
    await expect(broken.record({ invalid: [{ id: 'a', message: 'm' }], valid: [], sentAt: 's' })).resolves.toBeUndefined();
    expect(broken.summary().invalid).toBe(0);
    await broken.stop();
  });

  it('a new leader starts from what the store holds, not from the copy it followed', async () => {
    const store = new Keyv();
    let leading = false;
    const other = verdictsOn(store, () => leading);
    const first = verdictsOn(store, true);
    await first.record({ invalid: [{ id: 'a', message: 'm' }], valid: [], sentAt: '2026-11-30T08:00:00.000Z' });
    leading = true;
    await other.record({ invalid: [{ id: 'b', message: 'm' }], valid: [], sentAt: '2026-11-30T08:01:00.000Z' });
    expect(other.summary().invalid).toBe(2);
    const again = verdictsOn(store, false);
    again.start();
    expect(await waitFor(() => again.summary().invalid === 2)).toBe(true);
    await Promise.all([again.stop(), other.stop(), first.stop()]);
  });

  it("reads the catalog's diagnostics page by page; a failed read keeps those before and says why", async () => {
    server.diagnostics.push(
      {
        type: 'ATTRIBUTES_MISSING',
        severity: 'MUST_FIX',
        title: 'Missing brand',
        subtitle: 'Add a brand',
        number_of_affected_items: 12,
      },
      { type: 'IMAGE_QUALITY', severity: 'OPPORTUNITY', title: 'Low image quality', number_of_affected_items: 3 },
      { type: 'EVENT_SOURCE_ISSUES', severity: 'MUST_FIX', title: 'Pixel not connected', affected_channels: ['da'] },
    );
    expect(await verdicts.readDiagnosticsNow()).toBe('read');
    expect(server.diagnosticsReads()).toBe(2);
    const read = verdicts.summary().diagnostics;
    expect(read?.readAt).toBe('2026-11-30T08:00:00.000Z');
    expect(read?.groups).toEqual([
      { type: 'ATTRIBUTES_MISSING', severity: 'MUST_FIX', title: 'Missing brand', subtitle: 'Add a brand', items: 12 },
      { type: 'IMAGE_QUALITY', severity: 'OPPORTUNITY', title: 'Low image quality', items: 3 },
      { type: 'EVENT_SOURCE_ISSUES', severity: 'MUST_FIX', title: 'Pixel not connected', channels: ['da'] },
    ]);
    const authorization = server.requests.find((request) => request.url.includes('/diagnostics'))?.headers.authorization;
    expect(authorization).toBe(`Bearer ${TOKEN}`);

    server.faults.failNext(1, { status: 500 });
    clock += 86_400_000;
    expect(await verdicts.readDiagnosticsNow()).toBe('failed');
    const failed = verdicts.summary().diagnostics;
    expect(failed?.groups).toHaveLength(3);
    expect(failed?.readAt).toBe('2026-11-30T08:00:00.000Z');
    expect(failed?.lastError?.message).toMatch(/^diagnostics could not be read \(HTTP 500/);
  });

  it('names an answer that is not a list of diagnostics', async () => {
    server.diagnostics.push({ type: 'X', number_of_affected_items: 'many' });
    expect(await client.diagnostics()).toEqual({
      problem:
        'none of the 1 diagnostics could be read (the first: number_of_affected_items Invalid input: expected number, received string)',
    });
    server.diagnostics.push({ type: 'IMAGE_QUALITY', severity: 'OPPORTUNITY', title: 'Low image quality' });
    expect(await client.diagnostics()).toEqual({
      groups: [{ type: 'IMAGE_QUALITY', severity: 'OPPORTUNITY', title: 'Low image quality' }],
    });
    expect(await verdictsOn(new Keyv(), false).readDiagnosticsNow()).toBe('skipped');
  });
});
