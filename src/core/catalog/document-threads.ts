/**
 * How many threads a full sync reads the units' price lists and stock exports with (`SYNC_DOCUMENT_THREADS`,
 * decision 0020): its own, and a second one beside it for a large catalog.
 */

/** `SYNC_DOCUMENT_THREADS`: one thread, two, or two from `SECOND_THREAD_ARTICLES` articles on. */
export type DocumentThreadsSetting = 1 | 2 | 'auto';

/**
 * From how many articles `auto` (the default) reads the documents with a second thread. Below it the second
 * thread saves little (at 100,000 × 5 ~2–5 s of ~17 s) and its documents in flight cost ~15–25 MiB at a peak
 * that must stay under 600 MiB in a serving day; at 1,000,000 × 5 it took `sources` from ~93–124 to ~62–98 s,
 * and with the articles in columns (decision 0025) the sync's peak stays ~280 MiB under the 1,536 MiB bar
 * (bench/full-sync.ts; decision 0020).
 */
export const SECOND_THREAD_ARTICLES = 250_000;

/** Whether a full sync that found `articles` reads the units' documents with a second thread (absent: 1, as in tests). */
export function usesSecondThread(setting: DocumentThreadsSetting | undefined, articles: number): boolean {
  if (setting === 'auto') return articles >= SECOND_THREAD_ARTICLES;
  return setting === 2;
}
