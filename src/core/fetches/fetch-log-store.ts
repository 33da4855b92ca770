import type { FetchEntry, FetchSummary } from './fetch-summary.js';

/** What a fetch log store holds at start. */
export interface StoredFetchLog {
  /** This store's recent entries, newest first (a shared store answers them through `recent` instead). */
  readonly entries: readonly FetchEntry[];
  readonly summaries: readonly FetchSummary[];
  /** Epoch milliseconds when the log began (its first start on this store). */
  readonly since: number;
}

/**
 * Where the fetch log lives (docs/console.md#who-fetches-the-feeds): keyv (SQLite, memory) for one instance,
 * Redis for a group, whose instances all write to and read from the same log.
 */
export interface FetchLogStore {
  /** Whether other instances write to this log too (Redis): its recent entries are then read from the store. */
  readonly shared: boolean;
  load(): Promise<StoredFetchLog>;
  /** Stores a batch of entries (oldest first) and the batch's summaries; answers every summary stored now. */
  append(entries: readonly FetchEntry[], summaries: readonly FetchSummary[]): Promise<readonly FetchSummary[]>;
  /** The newest `limit` entries of every instance, newest first (shared stores; others answer `[]`). */
  recent(limit: number): Promise<FetchEntry[]>;
  close(): Promise<void>;
}

/** More keys than this (feeds × views × consumers) are not summarized: a scanner's made-up URLs must not grow it. */
export const MAX_SUMMARIES = 1_000;
