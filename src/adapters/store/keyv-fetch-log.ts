import type { Keyv } from 'keyv';
import type { FetchLogStore, StoredFetchLog } from '../../core/fetches/fetch-log-store.js';
import { MAX_SUMMARIES } from '../../core/fetches/fetch-log-store.js';
import { type FetchEntry, type FetchSummary, mergeSummaries, summaryKey } from '../../core/fetches/fetch-summary.js';

/** Entries per stored chunk: a flush rewrites the chunk being filled (~100 KB), never the whole log. */
const CHUNK_ENTRIES = 500;

interface StoredChunk {
  /** The chunk's number: entries `chunk × size … chunk × size + entries.length - 1` in the order recorded. */
  readonly chunk: number;
  readonly entries: FetchEntry[];
}

const KEYS = {
  since: 'fetch-log:since',
  summaries: 'fetch-log:summaries',
  chunk: (slot: number) => `fetch-log:chunk:${slot}`,
};

/**
 * The fetch log in a keyv store (SQLite or memory; one instance): the entries as a ring of chunks under
 * `ceil(size / chunk) + 1` keys, each rewritten while it fills and then left until the ring comes round to
 * it again, and the summaries under one key. Loading keeps the newest `size` entries.
 */
export function createKeyvFetchLog(keyv: Keyv, options: { readonly size: number; readonly now: () => Date }): FetchLogStore {
  const chunkSize = Math.min(CHUNK_ENTRIES, options.size);
  const slots = Math.ceil(options.size / chunkSize) + 1;
  let current: StoredChunk = { chunk: 0, entries: [] };
  let summaries = new Map<string, FetchSummary>();

  async function readChunks(): Promise<StoredChunk[]> {
    const read = await Promise.all(Array.from({ length: slots }, (_, slot) => keyv.get(KEYS.chunk(slot))));
    return read
      .filter((chunk): chunk is StoredChunk => typeof chunk === 'object' && chunk !== null && Array.isArray(chunk.entries))
      .sort((a, b) => b.chunk - a.chunk);
  }

  return {
    shared: false,
    async load(): Promise<StoredFetchLog> {
      let since = (await keyv.get(KEYS.since)) as number | undefined;
      if (typeof since !== 'number') {
        since = options.now().getTime();
        await keyv.set(KEYS.since, since);
      }
      for (const summary of ((await keyv.get(KEYS.summaries)) as FetchSummary[] | undefined) ?? []) {
        summaries.set(summaryKey(summary), summary);
      }
      const chunks = await readChunks();
      const newest = chunks[0];
      if (newest !== undefined) current = { chunk: newest.chunk, entries: [...newest.entries] };
      const entries: FetchEntry[] = [];
      for (const chunk of chunks) {
        for (let i = chunk.entries.length - 1; i >= 0 && entries.length < options.size; i--)
          entries.push(chunk.entries[i] as FetchEntry);
      }
      return { entries, summaries: [...summaries.values()], since };
    },
    async append(entries, batch) {
      // Applied to copies and kept only once stored: a failed append is tried again with the same batch.
      let filling: StoredChunk = { chunk: current.chunk, entries: [...current.entries] };
      const touched = new Map<number, StoredChunk>();
      for (const entry of entries) {
        if (filling.entries.length >= chunkSize) filling = { chunk: filling.chunk + 1, entries: [] };
        filling.entries.push(entry);
        touched.set(filling.chunk % slots, filling);
      }
      const merged = new Map(summaries);
      for (const summary of batch) {
        const key = summaryKey(summary);
        const known = merged.get(key);
        if (known !== undefined) merged.set(key, mergeSummaries(known, summary));
        else if (merged.size < MAX_SUMMARIES) merged.set(key, summary);
      }
      for (const [slot, chunk] of touched) await keyv.set(KEYS.chunk(slot), chunk);
      const all = [...merged.values()];
      if (batch.length > 0) await keyv.set(KEYS.summaries, all);
      current = filling;
      summaries = merged;
      return all;
    },
    recent: async () => [],
    close: () => keyv.disconnect(),
  };
}
