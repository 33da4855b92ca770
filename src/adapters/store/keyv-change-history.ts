import type { Keyv } from 'keyv';
import type { ChangeHistory, StoredTransition } from '../../core/catalog/change-log.js';

interface HistoryIndex {
  readonly source: string;
  readonly transitions: readonly { readonly from: string; readonly to: string }[];
}

/**
 * The changes feed's transitions kept beside the catalog (keyv): each under a key of its own (written once),
 * and an index of the newest `keep`, so that a `changes.json` cursor works after a restart and on every
 * instance of a group. Only an instance for which `canWrite()` holds stores (in a group: the leader; every
 * instance computes the same transitions from the same versions). Index first after the transition: the
 * index never names a transition that is not there.
 */
export function createKeyvChangeHistory(
  keyv: Keyv,
  options: { readonly source: string; readonly prefix?: string; readonly keep?: number; readonly canWrite?: () => boolean },
): ChangeHistory {
  const prefix = options.prefix ?? 'catalog';
  const keep = options.keep ?? 100;
  const indexKey = `${prefix}:changes:index`;
  const transitionKey = (to: string) => `${prefix}:changes:t:${to}`;
  let writes: Promise<void> = Promise.resolve();

  async function readIndex(): Promise<HistoryIndex['transitions']> {
    const index = (await keyv.get(indexKey)) as HistoryIndex | undefined;
    return index?.source === options.source ? index.transitions : [];
  }

  return {
    save(transition) {
      if (options.canWrite?.() === false) return Promise.resolve();
      // One after another: each rewrites the index the previous one wrote.
      writes = writes
        .catch(() => undefined)
        .then(async () => {
          await keyv.set(transitionKey(transition.to), transition);
          const known = await readIndex();
          // A gap (versions this instance never saw) breaks the chain: older cursors cannot be answered.
          const chained = known.at(-1)?.to === transition.from ? known : [];
          const next = [...chained, { from: transition.from, to: transition.to }];
          const kept = next.slice(-keep);
          await keyv.set(indexKey, { source: options.source, transitions: kept } satisfies HistoryIndex);
          const keptKeys = new Set(kept.map((entry) => entry.to));
          for (const dropped of known) if (!keptKeys.has(dropped.to)) await keyv.delete(transitionKey(dropped.to));
        });
      return writes;
    },
    async from(since) {
      const index = await readIndex();
      const start = index.findIndex((entry) => entry.from === since);
      if (start < 0) return [];
      const stored: StoredTransition[] = [];
      for (const entry of index.slice(start)) {
        const transition = (await keyv.get(transitionKey(entry.to))) as StoredTransition | undefined;
        if (transition === undefined) return [];
        stored.push(transition);
      }
      return stored;
    },
  };
}
