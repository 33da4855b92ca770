import type { SyncPhase } from './catalog-service.js';
import { phaseAfter } from './full-sync.js';

/**
 * What phase the full sync runs now (the admin area's progress page): the catalog service reports each
 * phase as it ends (`onPhase`), and the phase after the last one ended is the one in progress.
 */
export interface SyncPhases {
  readonly onPhase: (phase: SyncPhase, ms: number, unit?: string) => void;
  /**
   * The phase of the full sync running now, given when it started (`since`) if known: a phase that
   * ended before that belongs to an earlier run. `undefined` when it cannot be told.
   */
  current(since: Date | undefined): string | undefined;
}

export function createSyncPhases(now: () => Date): SyncPhases {
  let last: { readonly phase: SyncPhase; readonly at: Date } | undefined;
  return {
    onPhase(phase) {
      last = { phase, at: now() };
    },
    current(since) {
      if (last === undefined || (since !== undefined && last.at.getTime() < since.getTime())) return phaseAfter(undefined);
      // The last run ended with `publish`; when this one began is unknown, so is its phase.
      if (last.phase === 'publish') return since === undefined ? undefined : phaseAfter(undefined);
      return phaseAfter(last.phase);
    },
  };
}
