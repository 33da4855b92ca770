import { createMutex } from '../../core/async/create-mutex.js';
import type { CompiledEnrichment } from '../../core/enrichment/compile-enrichment.js';
import type { EnrichmentCheck } from '../../core/enrichment/enrichment-check.js';
import type { EnrichmentTable } from '../../core/enrichment/enrichment-table.js';
import type {
  EnrichmentDocument,
  EnrichmentRead,
  EnrichmentSource,
  EnrichmentSourceErrorCode,
  EnrichmentStore,
  EnrichmentValidators,
} from './enrichment-ports.js';

/**
 * The marketer's enrichment sheet over time (docs/enrichment.md): re-read on a schedule with validators,
 * checked in a worker, and adopted only when it can be used. A sheet that cannot be read or used leaves the
 * last good one in use, and the problem is reported (status page, `/readyz`) until a good sheet arrives.
 * The last good sheet is kept in the store, so that a restart, or a new leader of a group, applies it
 * at once. In memory the service keeps the sheet's table (docs/decisions/0011-enrichment-sheet.md#memory), not its bytes. A newly adopted sheet publishes a new catalog version through a full sync (the caller's
 * `onAdopted`), like any other change.
 */

export interface EnrichmentProblemReport {
  readonly at: string;
  /** `ENRICHMENT_INVALID` for a sheet that was read but cannot be used; else the source's code. */
  readonly code: EnrichmentSourceErrorCode | 'ENRICHMENT_INVALID';
  readonly message: string;
  /** The check of the sheet that was refused. */
  readonly check?: EnrichmentCheck;
}

export interface EnrichmentStatus {
  /** Where the sheet is read from (redacted). */
  readonly source: string;
  readonly lastCheckAt?: string;
  /** The sheet in use: when it was read, and what its check found. */
  readonly current?: { readonly name: string; readonly fetchedAt: string; readonly check: EnrichmentCheck };
  /** The last failed read or refused sheet, until a read succeeds. */
  readonly problem?: EnrichmentProblemReport;
}

export type EnrichmentRefreshOutcome = 'unchanged' | 'adopted' | 'failed';

/** The sheet a full sync applies: its table, in shared memory, and what it is. */
export interface EnrichmentInUse {
  readonly table: EnrichmentTable;
  readonly name: string;
  readonly fetchedAt: string;
}

export interface EnrichmentService {
  /** Learns the last good sheet from the store (what it is; it is loaded and read when a sync needs it). */
  start(): Promise<void>;
  /**
   * Takes what the store says of the sheet and of the last read when it is newer than what this instance
   * knows: in a group, followers (which never read the source) show the leader's sheet and problems.
   */
  follow(): Promise<void>;
  /** Reads the source; a usable new sheet is stored and adopted. Never throws for a bad source or sheet. */
  refresh(signal?: AbortSignal): Promise<EnrichmentRefreshOutcome>;
  /**
   * This instance's first read of the source, awaited by its first full sync so that the first catalog it
   * publishes carries the sheet (bounded by the source's timeout, `ENRICHMENT_TIMEOUT_MS`). Later calls
   * share that read; a sheet that cannot be had is reported and the sync goes ahead. Never throws.
   */
  firstRead(signal?: AbortSignal): Promise<void>;
  /** The sheet a full sync applies: the last good one, re-read from the store when another instance stored a newer one. */
  current(): Promise<EnrichmentInUse | undefined>;
  status(): EnrichmentStatus;
}

export interface EnrichmentServiceDeps {
  readonly source: EnrichmentSource;
  readonly store: EnrichmentStore;
  /** Reads the sheet into its table (in a worker) and says whether it can be used. */
  readonly check: (document: EnrichmentDocument, signal?: AbortSignal) => Promise<CompiledEnrichment>;
  readonly logger: {
    info(meta: object, message: string): void;
    warn(meta: object, message: string): void;
  };
  readonly now: () => Date;
}

/**
 * The sheet's bytes in shared memory: the worker of every check and full sync reads them where they are,
 * instead of a copy per task (a 100,000-row sheet is ~60 MB; BENCHMARKS.md).
 */
function sharedCopy(document: EnrichmentDocument): EnrichmentDocument {
  return document.bytes.buffer instanceof SharedArrayBuffer ? document : { ...document, bytes: toSharedBytes(document.bytes) };
}

/** `bytes` copied into a SharedArrayBuffer (a worker task given it reads the same memory). */
function toSharedBytes(bytes: Uint8Array): Uint8Array {
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  shared.set(bytes);
  return shared;
}

/** The sheet in use cannot be had for a sync now: the sync fails and the served catalog keeps its values. */
export class EnrichmentUnavailableError extends Error {
  override readonly name = 'EnrichmentUnavailableError';
  readonly code = 'ENRICHMENT_UNAVAILABLE';
}

function codeOf(error: unknown): EnrichmentSourceErrorCode {
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  return typeof code === 'string' && code.startsWith('ENRICHMENT_')
    ? (code as EnrichmentSourceErrorCode)
    : 'ENRICHMENT_UNREACHABLE';
}

/** The sheet in use: what is known of it, and its table once a sync needed it (followers never load it). */
interface SheetInUse {
  readonly name: string;
  readonly fetchedAt: string;
  validators: EnrichmentValidators;
  readonly check: EnrichmentCheck;
  table: EnrichmentTable | undefined;
}

function inUseOf(document: EnrichmentDocument, check: EnrichmentCheck, table: EnrichmentTable): SheetInUse {
  return { name: document.name, fetchedAt: document.fetchedAt, validators: document.validators, check, table };
}

/** Reads a sheet into its table; a check that fails to run is a sheet that cannot be used. */
async function compileWith(
  check: EnrichmentServiceDeps['check'],
  document: EnrichmentDocument,
  signal?: AbortSignal,
): Promise<CompiledEnrichment> {
  try {
    return await check(document, signal);
  } catch (error) {
    if (signal?.aborted === true) throw error;
    return { check: { ok: false, error: `it could not be checked (${messageOf(error)})` } };
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createEnrichmentService(deps: EnrichmentServiceDeps): EnrichmentService {
  const { source, store, logger, now } = deps;
  // One read at a time: the start-up read and a scheduled one never download and store a sheet twice.
  const serially = createMutex();
  let inUse: SheetInUse | undefined;
  let lastCheckAt: string | undefined;
  let problem: EnrichmentProblemReport | undefined;

  /** The store's sheet, when it is another than this instance's (another instance, an earlier leader, a restart). */
  async function followStore(): Promise<void> {
    const meta = await store.loadMeta();
    if (meta === undefined || meta.validators.sha256 === inUse?.validators.sha256) return;
    inUse = { name: meta.name, fetchedAt: meta.fetchedAt, validators: meta.validators, check: meta.check, table: undefined };
  }

  function fail(report: EnrichmentProblemReport): EnrichmentRefreshOutcome {
    const repeated = problem?.code === report.code && problem.message === report.message;
    problem = report;
    if (!repeated) {
      const kept = inUse === undefined ? '' : '; the last good sheet stays in use';
      logger.warn(
        { source: source.label, code: report.code, ...(inUse === undefined ? {} : { inUse: inUse.fetchedAt }) },
        `enrichment sheet not updated: ${report.message}${kept}`,
      );
    }
    return 'failed';
  }

  /** Checks a sheet read anew; a usable one is kept in the store (best effort) and used. */
  async function adopt(document: EnrichmentDocument, at: string, signal?: AbortSignal): Promise<EnrichmentRefreshOutcome> {
    const { check, table } = await compileWith(deps.check, document, signal);
    if (!check.ok || table === undefined) {
      const message = `the sheet ${document.name} cannot be used: ${check.error ?? 'unreadable'}`;
      return fail({ at, code: 'ENRICHMENT_INVALID', message, check });
    }
    // A store that fails now costs only the restart case: this instance uses the sheet all the same.
    await store.save(document, check).catch((error: unknown) => {
      logger.warn(
        { source: source.label, err: error },
        'could not keep the enrichment sheet in the store; using it all the same',
      );
    });
    inUse = inUseOf(document, check, table);
    problem = undefined;
    logger.info(
      { source: source.label, rows: check.rows, groups: check.groups, problems: check.problemCount },
      'enrichment sheet updated; publishing it with a full sync',
    );
    return 'adopted';
  }

  /** Tells the other instances how this read went (best effort: a store hiccup only delays their view). */
  async function shareReadStatus(): Promise<void> {
    if (lastCheckAt === undefined) return;
    const status = {
      lastCheckAt,
      ...(problem === undefined ? {} : { problem: { at: problem.at, code: problem.code, message: problem.message } }),
    };
    await store.saveReadStatus(status).catch(() => undefined);
  }

  async function follow(): Promise<void> {
    await followStore();
    const shared = await store.loadReadStatus();
    if (shared === undefined || (lastCheckAt !== undefined && shared.lastCheckAt <= lastCheckAt)) return;
    lastCheckAt = shared.lastCheckAt;
    problem =
      shared.problem === undefined
        ? undefined
        : {
            at: shared.problem.at,
            code: shared.problem.code as EnrichmentProblemReport['code'],
            message: shared.problem.message,
          };
  }

  async function refresh(signal?: AbortSignal): Promise<EnrichmentRefreshOutcome> {
    lastCheckAt = now().toISOString();
    const at = lastCheckAt;
    let read: EnrichmentRead;
    try {
      await followStore();
      read = await source.read(inUse?.validators, signal);
    } catch (error) {
      if (signal?.aborted === true) throw error;
      return fail({ at, code: codeOf(error), message: messageOf(error) });
    }
    if (read.changed) return adopt(read.document, at, signal);
    if (inUse !== undefined && read.validators !== undefined) inUse.validators = read.validators;
    problem = undefined;
    return 'unchanged';
  }

  /**
   * The table of the sheet in use, read from the store's copy when this instance has not read the sheet
   * itself, and so checked again: a sheet the reader (or a lowered limit) refuses is not applied. When the
   * store has lost the sheet (an emptied Redis), it is read from the source again, in full; when it cannot be
   * read at all now, the sync fails (`ENRICHMENT_UNAVAILABLE`), so that the served catalog keeps its values
   * rather than a catalog without them being published.
   */
  async function loadInUse(): Promise<EnrichmentInUse | undefined> {
    const sheet = inUse;
    if (sheet === undefined) return undefined;
    if (sheet.table !== undefined) return { table: sheet.table, name: sheet.name, fetchedAt: sheet.fetchedAt };
    const document = await store.load();
    if (document === undefined || document.validators.sha256 !== sheet.validators.sha256) return rereadLost(sheet);
    let compiled: CompiledEnrichment;
    try {
      compiled = await deps.check(sharedCopy(document));
    } catch (error) {
      throw new EnrichmentUnavailableError(`the sheet ${sheet.name} could not be read now (${messageOf(error)})`, {
        cause: error,
      });
    }
    const { check, table } = compiled;
    if (!check.ok || table === undefined) {
      const message = `the stored sheet ${document.name} cannot be used: ${check.error ?? 'unreadable'}`;
      fail({ at: now().toISOString(), code: 'ENRICHMENT_INVALID', message, check });
      return undefined;
    }
    if (inUse === sheet) sheet.table = table;
    return { table, name: sheet.name, fetchedAt: sheet.fetchedAt };
  }

  /** The sheet in use, gone from the store: read in full from the source (no validators), then used. */
  async function rereadLost(sheet: SheetInUse): Promise<EnrichmentInUse> {
    sheet.validators = {};
    const outcome = await serially(() => refresh());
    const table = inUse?.table;
    if (outcome !== 'adopted' || inUse === undefined || table === undefined) {
      const why = problem?.message ?? 'it could not be read again';
      throw new EnrichmentUnavailableError(`the sheet in use (${sheet.name}) is no longer in the store, and ${why}`);
    }
    return { table, name: inUse.name, fetchedAt: inUse.fetchedAt };
  }

  const refreshSerially = (signal?: AbortSignal): Promise<EnrichmentRefreshOutcome> =>
    serially(async () => {
      const outcome = await refresh(signal);
      await shareReadStatus();
      return outcome;
    });

  let firstRead: Promise<void> | undefined;
  async function readFirst(signal?: AbortSignal): Promise<void> {
    const outcome = await refreshSerially(signal).catch((error: unknown) => {
      // Only an aborted read throws (a stopping bridge): the next sync tries again.
      firstRead = undefined;
      throw error;
    });
    if (outcome === 'failed' && inUse === undefined) {
      logger.warn(
        { source: source.label, code: problem?.code },
        'the first catalog goes out without the enrichment sheet (it could not be read); the first good read publishes it',
      );
    }
  }

  return {
    start: () => followStore(),
    follow: () => follow().catch(() => undefined),
    refresh: refreshSerially,
    firstRead(signal) {
      firstRead ??= readFirst(signal);
      return firstRead.catch(() => undefined);
    },
    async current() {
      await followStore();
      return loadInUse();
    },
    status() {
      return {
        source: source.label,
        ...(lastCheckAt === undefined ? {} : { lastCheckAt }),
        ...(inUse === undefined ? {} : { current: { name: inUse.name, fetchedAt: inUse.fetchedAt, check: inUse.check } }),
        ...(problem === undefined ? {} : { problem }),
      };
    },
  };
}
