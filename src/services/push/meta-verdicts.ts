import { setTimeout as delay } from 'node:timers/promises';
import {
  applyItemVerdicts,
  type MetaDiagnostic,
  type MetaDiagnostics,
  type MetaItemIssue,
  type MetaItemIssues,
  type MetaTopMessage,
  type MetaVerdictSummary,
  topMessagesOf,
} from '../../core/push/meta-verdicts.js';
import type { ServiceLogger as Logger } from '../logging/service-logger.js';

/**
 * Meta's verdicts, kept and shown (docs/channel-push.md#metas-verdicts). The leader records each batch's
 * per-item outcome as the Meta client and the batch checks learn it (an item refused, or found invalid at
 * ingest, with Meta's message; an item whose batch finished clean loses its error) and reads the catalog's
 * diagnostics once a day. Everything is kept in the store; every instance of a group takes it from there.
 */

export interface MetaVerdictStore {
  items(): Promise<MetaItemIssues>;
  saveItems(items: MetaItemIssues): Promise<void>;
  diagnostics(): Promise<MetaDiagnostics | undefined>;
  saveDiagnostics(diagnostics: MetaDiagnostics): Promise<void>;
}

export type MetaDiagnosticsRead = { readonly groups: readonly MetaDiagnostic[] } | { readonly problem: string };

export interface MetaVerdictsDeps {
  readonly store: MetaVerdictStore;
  /** `GET /{catalog_id}/diagnostics`, every page. */
  readonly readDiagnostics: () => Promise<MetaDiagnosticsRead>;
  readonly isLeader: () => boolean;
  /** How often the diagnostics are read (a day). */
  readonly intervalMs: number;
  readonly firstDelayMs: number;
  /** How often an instance takes the verdicts from the store (followers show the leader's). */
  readonly followMs: number;
  readonly now: () => number;
  readonly logger: Logger;
}

/** A batch's per-item outcome: retailer ids Meta found invalid (with its message), and ids it took clean. */
export interface MetaBatchVerdicts {
  readonly invalid: readonly { readonly id: string; readonly message: string }[];
  readonly valid: readonly string[];
}

export interface MetaVerdicts {
  start(): void;
  stop(): Promise<void>;
  /** Records a batch's per-item outcome (leader only; kept in the store in the order recorded). */
  record(verdicts: MetaBatchVerdicts): Promise<void>;
  /** Meta's last error on an item, if its last batch left it invalid. */
  item(id: string): MetaItemIssue | undefined;
  summary(): MetaVerdictSummary;
  /** Reads the diagnostics now (leader only). */
  readDiagnosticsNow(): Promise<'read' | 'failed' | 'skipped'>;
}

export function createMetaVerdicts(deps: MetaVerdictsDeps): MetaVerdicts {
  const { store, logger: log, now } = deps;
  const abort = new AbortController();
  let items: MetaItemIssues = new Map();
  let top: readonly MetaTopMessage[] = [];
  let diagnostics: MetaDiagnostics | undefined;
  let loaded = false;
  let writes: Promise<void> = Promise.resolve();
  const timers: NodeJS.Timeout[] = [];

  function take(next: MetaItemIssues): void {
    if (next === items) return;
    items = next;
    top = topMessagesOf(items);
  }

  async function follow(): Promise<void> {
    // The leader's own copy is the newest (its writes may still be under way); it takes the store's once.
    if (!loaded || !deps.isLeader()) take(await store.items());
    loaded = true;
    diagnostics = (await store.diagnostics()) ?? diagnostics;
  }

  async function readDiagnosticsNow(): Promise<'read' | 'failed' | 'skipped'> {
    if (!deps.isLeader() || abort.signal.aborted) return 'skipped';
    const read = await deps.readDiagnostics();
    if (abort.signal.aborted || !deps.isLeader()) return 'skipped';
    const at = new Date(now()).toISOString();
    const before = (await store.diagnostics()) ?? diagnostics;
    if ('problem' in read) {
      log.warn({ problem: read.problem }, "push: Meta's catalog diagnostics not read; the last ones stay");
      diagnostics = { ...(before ?? { groups: [] }), lastError: { at, message: read.problem } };
      await store.saveDiagnostics(diagnostics);
      return 'failed';
    }
    diagnostics = { readAt: at, groups: read.groups };
    await store.saveDiagnostics(diagnostics);
    log.info({ groups: read.groups.length }, "push: Meta's catalog diagnostics read");
    return 'read';
  }

  return {
    start() {
      void follow().catch(() => undefined);
      timers.push(setInterval(() => void follow().catch(() => undefined), deps.followMs).unref());
      const loop = async () => {
        await delay(deps.firstDelayMs, undefined, { signal: abort.signal, ref: false });
        while (!abort.signal.aborted) {
          await readDiagnosticsNow().catch((error: unknown) => log.warn({ err: error }, 'push: Meta diagnostics failed'));
          await delay(deps.intervalMs, undefined, { signal: abort.signal, ref: false });
        }
      };
      void loop().catch(() => undefined);
    },
    async stop() {
      abort.abort();
      for (const timer of timers.splice(0)) clearInterval(timer);
      await writes;
    },
    async record(verdicts) {
      if (!deps.isLeader()) return;
      const next = applyItemVerdicts(items, verdicts, new Date(now()).toISOString());
      if (next === items) return;
      take(next);
      // One write at a time, in order: the last one holds every batch recorded before it.
      writes = writes
        .then(() => store.saveItems(items))
        .catch((error: unknown) => log.warn({ err: error }, "push: Meta's item verdicts not kept"));
      await writes;
    },
    item: (id) => items.get(id),
    summary: () => ({ invalid: items.size, topMessages: top, ...(diagnostics === undefined ? {} : { diagnostics }) }),
    readDiagnosticsNow,
  };
}
