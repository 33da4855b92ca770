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
import { type ReadSchedule, startReadSchedule } from './read-schedule.js';

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

/** `intervalMs`: how often the diagnostics are read (META_DIAGNOSTICS_INTERVAL_MS, a day). */
export interface MetaVerdictsDeps extends ReadSchedule {
  readonly store: MetaVerdictStore;
  /**
   * In a group: the lease holder's fence while this instance leads (one value per term), so a leader that
   * lost and regained the lease starts again from the store. Absent on a single instance.
   */
  readonly term?: () => string | undefined;
  /** `GET /{catalog_id}/diagnostics`, every page. */
  readonly readDiagnostics: () => Promise<MetaDiagnosticsRead>;
}

/**
 * A batch's per-item outcome: retailer ids Meta found invalid (with its message), ids it took clean (whole
 * items only: a clean field update says nothing of a refused whole item), and when the batch was sent.
 */
export interface MetaBatchVerdicts {
  readonly invalid: readonly { readonly id: string; readonly message: string }[];
  readonly valid: readonly string[];
  readonly sentAt: string;
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
  /** The store's items taken in this term of leading (a new term starts from the store). */
  let leaderCopy: { readonly term: string | undefined; readonly loaded: Promise<void> } | undefined;
  /** A write under way, and whether the items changed since it began: one write at a time, the newest items each. */
  let writing: Promise<void> | undefined;
  let dirty = false;
  let reading: Promise<'read' | 'failed' | 'skipped'> | undefined;

  function take(next: MetaItemIssues): void {
    if (next === items) return;
    items = next;
    top = topMessagesOf(items);
  }

  /** The leader's own copy is the newest (its writes may still be under way): taken from the store once a term. */
  function ownCopy(): Promise<void> {
    const term = deps.term?.();
    if (leaderCopy === undefined || leaderCopy.term !== term) {
      const loaded = store.items().then(take, (error: unknown) => {
        leaderCopy = undefined;
        throw error;
      });
      leaderCopy = { term, loaded };
    }
    return leaderCopy.loaded;
  }

  async function follow(): Promise<void> {
    if (deps.isLeader()) await ownCopy();
    else {
      leaderCopy = undefined;
      const read = await store.items();
      // Leading by now: its own copy (loaded for the term) is the one to keep.
      if (!deps.isLeader()) take(read);
    }
    diagnostics = (await store.diagnostics()) ?? diagnostics;
  }

  async function readDiagnostics(): Promise<'read' | 'failed' | 'skipped'> {
    if (!deps.isLeader() || abort.signal.aborted) return 'skipped';
    const read = await deps.readDiagnostics();
    if (abort.signal.aborted || !deps.isLeader()) return 'skipped';
    const at = new Date(now()).toISOString();
    if ('problem' in read) {
      // The stored ones, which another leader may have read since this instance's copy.
      const before = (await store.diagnostics()) ?? diagnostics;
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

  /** Writes the items until the store holds the newest (the records meanwhile share one write). */
  function flush(): Promise<void> {
    dirty = true;
    writing ??= (async () => {
      while (dirty) {
        dirty = false;
        await store.saveItems(items).catch((error: unknown) => log.warn({ err: error }, "push: Meta's item verdicts not kept"));
      }
    })().finally(() => {
      writing = undefined;
    });
    return writing;
  }

  /** One read at a time (a second caller waits for the one under way); `stop` waits for it. */
  function readDiagnosticsNow(): Promise<'read' | 'failed' | 'skipped'> {
    reading ??= readDiagnostics().finally(() => {
      reading = undefined;
    });
    return reading;
  }

  return {
    start() {
      startReadSchedule(deps, abort.signal, readDiagnosticsNow, follow);
    },
    async stop() {
      abort.abort();
      await reading?.catch(() => undefined);
      await writing;
    },
    async record(verdicts) {
      if (!deps.isLeader() || abort.signal.aborted) return;
      try {
        await ownCopy();
      } catch (error) {
        // Written over a copy not read, the store would lose what it holds: this batch's word is not kept.
        log.warn({ err: error }, "push: Meta's item verdicts could not be read; a batch's verdicts not kept");
        return;
      }
      if (abort.signal.aborted) return;
      const next = applyItemVerdicts(items, verdicts, new Date(now()).toISOString());
      if (next === items) return;
      take(next);
      await flush();
    },
    item: (id) => items.get(id),
    summary: () => ({ invalid: items.size, topMessages: top, ...(diagnostics === undefined ? {} : { diagnostics }) }),
    readDiagnosticsNow,
  };
}
