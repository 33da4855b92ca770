import type {
  EnrichmentDocument,
  EnrichmentSource,
  EnrichmentSourceErrorCode,
} from '../../adapters/enrichment/enrichment-source.js';
import type { EnrichmentStore } from '../../adapters/store/keyv-enrichment-store.js';
import type { EnrichmentCheck } from '../../core/enrichment/enrichment-check.js';

/**
 * The marketer's enrichment sheet over time (docs/enrichment.md): re-read on a schedule with validators,
 * checked in a worker, and adopted only when it can be used. A sheet that cannot be read or used leaves the
 * last good one in use, and the problem is reported (status page, `/readyz`) until a good sheet arrives.
 * The last good sheet is kept in the store, so that a restart, or a new leader of a group, applies it
 * at once. A newly adopted sheet publishes a new catalog version through a full sync (the caller's
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

export interface EnrichmentService {
  /** Loads the last good sheet from the store (no read of the source). */
  start(): Promise<void>;
  /** Reads the source; a usable new sheet is stored and adopted. Never throws for a bad source or sheet. */
  refresh(signal?: AbortSignal): Promise<EnrichmentRefreshOutcome>;
  /** The sheet a full sync applies: the last good one, re-read from the store when another instance stored a newer one. */
  current(): Promise<EnrichmentDocument | undefined>;
  status(): EnrichmentStatus;
}

export interface EnrichmentServiceDeps {
  readonly source: EnrichmentSource;
  readonly store: EnrichmentStore;
  /** Reads the sheet (in a worker) and says whether it can be used. */
  readonly check: (document: EnrichmentDocument, signal?: AbortSignal) => Promise<EnrichmentCheck>;
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
export function toSharedBytes(bytes: Uint8Array): Uint8Array {
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  shared.set(bytes);
  return shared;
}

function codeOf(error: unknown): EnrichmentSourceErrorCode {
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  return typeof code === 'string' && code.startsWith('ENRICHMENT_')
    ? (code as EnrichmentSourceErrorCode)
    : 'ENRICHMENT_UNREACHABLE';
}

export function createEnrichmentService(deps: EnrichmentServiceDeps): EnrichmentService {
  const { source, store, logger, now } = deps;
  let current: { document: EnrichmentDocument; check: EnrichmentCheck } | undefined;
  let lastCheckAt: string | undefined;
  let problem: EnrichmentProblemReport | undefined;

  async function adoptStored(): Promise<void> {
    const meta = await store.loadMeta();
    if (meta === undefined || meta.validators.sha256 === current?.document.validators.sha256) return;
    const document = await store.load();
    if (document !== undefined) current = { document: sharedCopy(document), check: meta.check };
  }

  function fail(report: EnrichmentProblemReport): EnrichmentRefreshOutcome {
    const repeated = problem?.code === report.code && problem.message === report.message;
    problem = report;
    if (!repeated) {
      logger.warn(
        { source: source.label, code: report.code, ...(current === undefined ? {} : { inUse: current.document.fetchedAt }) },
        `enrichment sheet not updated: ${report.message}${current === undefined ? '' : '; the last good sheet stays in use'}`,
      );
    }
    return 'failed';
  }

  return {
    async start() {
      await adoptStored();
    },
    async refresh(signal) {
      lastCheckAt = now().toISOString();
      let read: Awaited<ReturnType<EnrichmentSource['read']>>;
      try {
        read = await source.read(current?.document.validators, signal);
      } catch (error) {
        if (signal?.aborted === true) throw error;
        return fail({ at: lastCheckAt, code: codeOf(error), message: error instanceof Error ? error.message : String(error) });
      }
      if (!read.changed) {
        problem = undefined;
        return 'unchanged';
      }
      const document = sharedCopy(read.document);
      const check = await deps.check(document, signal);
      if (!check.ok) {
        return fail({
          at: lastCheckAt,
          code: 'ENRICHMENT_INVALID',
          message: `the sheet ${document.name} cannot be used: ${check.error ?? 'unreadable'}`,
          check,
        });
      }
      await store.save(document, check);
      current = { document, check };
      problem = undefined;
      logger.info(
        { source: source.label, rows: check.rows, groups: check.groups, problems: check.problemCount },
        'enrichment sheet updated; publishing it with a full sync',
      );
      return 'adopted';
    },
    async current() {
      await adoptStored();
      return current?.document;
    },
    status() {
      return {
        source: source.label,
        ...(lastCheckAt === undefined ? {} : { lastCheckAt }),
        ...(current === undefined
          ? {}
          : { current: { name: current.document.name, fetchedAt: current.document.fetchedAt, check: current.check } }),
        ...(problem === undefined ? {} : { problem }),
      };
    },
  };
}
