import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMutex } from '../../../src/core/async/create-mutex.js';
import { shuttingDown } from '../../../src/core/async/deadline.js';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import type { CatalogService, SyncPhase } from '../../../src/services/catalog/catalog-service.js';
import { createTestConfig } from '../../helpers/test-config.js';
import { API_KEY, sendJson, startTestSandbox } from '../sandbox/sandbox-test-kit.js';
import { createWorkerCatalog, switchedDeadline } from './worker-catalog-kit.js';

/**
 * A sync never wedges (docs/failure-modes.md): a POS whose answer never ends, or ends a byte at a time,
 * holds a sync only until its deadline; then the run is reported failed with the phase that ran over, the
 * last good version stays served, the sync's lock is free and the next sync succeeds. Real worker threads
 * read the sandbox over HTTP, as in the app.
 */

// Far too short for a trickling POS (a byte every 200 ms). The healthy syncs around the hostile one run under
// a long deadline: on a busy machine a fresh worker thread alone can take seconds.
const DEADLINE_MS = 3_000;
let sandbox: RunningSandbox;
const open: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox({ units: 2, articles: 200 });
});
afterEach(async () => {
  await sendJson(`${sandbox.url}/sandbox/faults`, 'DELETE');
  for (const resource of open.splice(0)) await resource.close();
});
afterAll(async () => {
  await sandbox.stop();
});

/** A service whose syncs run under `DEADLINE_MS` while `hostile(true)`, under a long deadline otherwise. */
function createService(onPhase?: (phase: SyncPhase) => void): CatalogService & { hostile(on: boolean): void } {
  const config = createTestConfig({ POS_BASE_URL: sandbox.url, POS_API_KEY: API_KEY });
  const deadline = switchedDeadline(DEADLINE_MS);
  deadline.hostile(true);
  const service = createWorkerCatalog(config, {
    deadlineMs: deadline.deadlineMs,
    open,
    ...(onPhase === undefined ? {} : { onPhase }),
  });
  return Object.assign(service, { hostile: deadline.hostile });
}

/** The good full sync a test starts from, under the long deadline. */
async function goodSync(service: CatalogService & { hostile(on: boolean): void }) {
  service.hostile(false);
  const report = await service.syncCatalog();
  service.hostile(true);
  return report;
}

async function fault(rule: Record<string, unknown>): Promise<void> {
  const answer = await sendJson(`${sandbox.url}/sandbox/faults`, 'PUT', rule);
  expect(answer.status).toBeLessThan(300);
}

describe('catalog/ a sync under its deadline', () => {
  it('aborts a full sync whose price lists trickle, frees its lock, keeps the last good version, and syncs again', async () => {
    const service = createService();
    const first = await goodSync(service);
    expect(first.outcome).toBe('published');

    await fault({ endpoint: 'price-list', mode: 'trickle', intervalMs: 200 });
    // The app's lock: the full and the stock sync take turns. The queued one is healthy: a long deadline.
    const exclusive = createMutex();
    const stuck = exclusive(async () => {
      const stuckReport = await service.syncCatalog();
      service.hostile(false);
      return stuckReport;
    });
    const queued = exclusive(() => service.syncStock());

    const report = await stuck;
    expect(report.outcome).toBe('failed');
    expect(report.error?.code).toBe('SYNC_DEADLINE');
    expect(report.error?.phase).toBe('sources');
    expect(report.error?.message).toContain('deadline of 3 s');
    expect(report.version).toBe(first.version);
    expect(service.current()?.version).toBe(first.version);
    // The run behind it got the lock.
    expect((await queued).outcome).toBe('unchanged');

    await sendJson(`${sandbox.url}/sandbox/faults`, 'DELETE');
    const next = await exclusive(() => service.syncCatalog());
    expect(['published', 'unchanged']).toContain(next.outcome);
    expect(service.lastReport('sync-catalog')?.outcome).toBe(next.outcome);
  });

  it('aborts a full sync whose article list trickles a byte at a time, naming that phase', async () => {
    const service = createService();
    // (An endless fast JSON body is cut by the client's size limit instead: POS_RESPONSE_INVALID.)
    await fault({ endpoint: 'article-list', mode: 'trickle', intervalMs: 200 });
    const report = await service.syncCatalog();
    expect(report.outcome).toBe('failed');
    expect(report.error).toMatchObject({ code: 'SYNC_DEADLINE', phase: 'articles' });
    expect(service.current()).toBeUndefined();
  });

  it('aborts a stock sync whose export trickles a byte at a time', async () => {
    const service = createService();
    const first = await goodSync(service);
    await fault({ endpoint: 'stock-export', mode: 'trickle', intervalMs: 200 });
    const report = await service.syncStock();
    expect(report.outcome).toBe('failed');
    expect(report.error).toMatchObject({ code: 'SYNC_DEADLINE', phase: 'stock' });
    expect(service.current()?.version).toBe(first.version);
  });

  it('aborts a full sync at once when its signal aborts (a shutdown), and publishes nothing', async () => {
    const shutdown = new AbortController();
    // Once the sync has read the articles and waits for the price lists, which never answer.
    const service = createService((phase) => {
      if (phase === 'articles') shutdown.abort(shuttingDown());
    });
    // Healthy but for the hang: only the shutdown may end it, not the short deadline.
    service.hostile(false);
    await fault({ endpoint: 'price-list', mode: 'hang' });
    const report = await service.syncCatalog({ signal: shutdown.signal });
    expect(report.outcome).toBe('failed');
    expect(report.error).toMatchObject({ code: 'SYNC_ABORTED', phase: 'sources' });
    expect(service.current()).toBeUndefined();
  });
});
