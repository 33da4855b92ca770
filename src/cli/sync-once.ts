import { openRedisGroup } from '../adapters/group/redis-group.js';
import type { Logger } from '../adapters/logger/create-logger.js';
import { configuredSource, createCatalogParts, instanceIdOf, isGroupStore, startSandboxIfNeeded } from '../app/catalog-parts.js';
import { createConfiguredFeedService, loadConfiguredTemplates, temporaryFeedFiles } from '../app/feed-parts.js';
import type { Config } from '../config/load-config.js';
import type { SyncReport } from '../services/catalog/catalog-service.js';
import { timingSince } from '../services/catalog/catalog-types.js';
import { type FeedFilesIndex, writeFeedFiles } from './write-feed-files.js';

export interface SyncOnceResult {
  /** True when a catalog was built (published, or the same as the stored one) and its feeds written. */
  readonly ok: boolean;
  readonly report: SyncReport;
  /** The written feeds, when `ok`. */
  readonly index?: FeedFilesIndex;
}

export interface SyncOnceDeps {
  readonly logger: Logger;
  readonly now?: () => Date;
}

/**
 * `catalog-bridge sync --once --out DIR`: one full sync through the same parts as the server (POS or
 * sandbox, the `STORE_URL` store, the templates), then every feed written into `outDir`.
 *
 * The stored catalog is loaded first, so the publish guard compares with the last run's catalog (a POS
 * that suddenly lists half the articles is refused, as in the server); only one of the configured source
 * is (docs/decisions/0007): another source's is no measure of this one's. When the sync fails or is refused,
 * `outDir` is left as it was. Templates are loaded before anything else: a broken template throws
 * `TemplateLoadError` without touching the POS.
 */
export async function syncOnce(config: Config, outDir: string, deps: SyncOnceDeps): Promise<SyncOnceResult> {
  const now = deps.now ?? (() => new Date());
  const templates = await loadConfiguredTemplates(config);
  // No simulated sales: the run reads one consistent sandbox catalog.
  const sandbox = await startSandboxIfNeeded(config, deps.logger, { salesPerMinute: 0 });
  const started = now();
  // On a group's Redis the run leads for its duration (the lease), or is refused while an instance leads.
  const leaseMs = config.group.leaseMs;
  const group = isGroupStore(config)
    ? openRedisGroup(config.store.url, { instance: `cli-${instanceIdOf(config)}`, leaseMs })
    : undefined;
  let renewing: NodeJS.Timeout | undefined;
  try {
    if (group !== undefined) {
      if ((await group.lease.acquire()) === undefined) {
        const leader = (await group.lease.holder())?.instance ?? 'another instance';
        const reason = `${leader} leads the group on this Redis; run the sync there (POST /admin/sync) or point STORE_URL elsewhere`;
        return { ok: false, report: { job: 'sync-catalog', outcome: 'refused', ...timingSince(started, now), reason } };
      }
      renewing = setInterval(() => void group.lease.renew().catch(() => false), Math.floor(leaseMs / 3));
    }
    const parts = createCatalogParts(
      config,
      sandbox,
      await configuredSource(config),
      deps.logger,
      now,
      group && { redis: group, isLeader: () => group.lease.held() !== undefined },
    );
    try {
      try {
        await parts.catalog.loadFromStore();
      } catch (error) {
        deps.logger.warn({ err: error }, 'could not load the stored catalog; syncing without it');
      }
      // The enrichment sheet as the server would apply it: the last good one, or a newer good one.
      await parts.enrichment?.start();
      await parts.enrichment?.refresh();
      const report = await parts.catalog.syncCatalog();
      const snapshot = parts.catalog.current();
      if ((report.outcome !== 'published' && report.outcome !== 'unchanged') || snapshot === undefined) {
        return { ok: false, report };
      }
      const feeds = createConfiguredFeedService(config, templates, sandbox, parts.catalog, deps.logger, temporaryFeedFiles());
      try {
        const index = await writeFeedFiles(feeds, snapshot, outDir);
        return { ok: true, report, index };
      } finally {
        await feeds.close();
      }
    } finally {
      await parts.close();
    }
  } finally {
    clearInterval(renewing);
    await group?.lease.release().catch(() => undefined);
    await group?.close();
    await sandbox?.stop();
  }
}
