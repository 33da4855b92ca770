import { randomBytes } from 'node:crypto';
import type { Keyv } from 'keyv';
import { bucketOf, VERDICT_BUCKETS, type VerdictSummary } from '../../core/push/channel-verdicts.js';
import type { GoogleVerdict } from '../../core/push/google-product-status.js';
import type { VerdictStore } from '../../services/push/google-verdicts.js';

/**
 * A channel's verdicts in the catalog's store (docs/channel-push.md, "Google's verdicts"): the summary under
 * one key, the verdicts in `VERDICT_BUCKETS` buckets by offer id, each bucket a small value (~400 products
 * at 100,000), so a product page reads one bucket and a read is written a bucket at a time. A read's buckets
 * are written under a generation of their own and the summary names it last: a read that stops half-way
 * never mixes with the verdicts in use. Scoped by the account, so another account's verdicts are never shown.
 */

interface StoredMeta {
  readonly account: string;
  readonly generation: string;
  readonly summary: VerdictSummary;
}

/** Buckets read lately, kept to spare a product page the store when it is shown again. */
const CACHED_BUCKETS = 8;

export function createKeyvVerdictStore(
  keyv: Keyv,
  options: { readonly channel: string; readonly account: string },
): VerdictStore {
  const prefix = `verdicts:${options.channel}`;
  const metaKey = `${prefix}:meta`;
  const bucketKey = (generation: string, bucket: number) => `${prefix}:${generation}:${bucket}`;
  const cache = new Map<string, readonly GoogleVerdict[]>();

  async function meta(): Promise<StoredMeta | undefined> {
    const stored = (await keyv.get(metaKey)) as StoredMeta | undefined;
    return stored?.account === options.account && typeof stored.generation === 'string' ? stored : undefined;
  }

  async function bucket(generation: string, index: number): Promise<readonly GoogleVerdict[]> {
    const key = bucketKey(generation, index);
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const stored = ((await keyv.get(key)) as GoogleVerdict[] | undefined) ?? [];
    cache.set(key, stored);
    if (cache.size > CACHED_BUCKETS) cache.delete(cache.keys().next().value as string);
    return stored;
  }

  return {
    async publish(buckets, summary) {
      const old = await meta();
      const generation = randomBytes(6).toString('hex');
      for (const [index, verdicts] of buckets) await keyv.set(bucketKey(generation, index), verdicts);
      await keyv.set(metaKey, { account: options.account, generation, summary } satisfies StoredMeta);
      if (old === undefined || old.generation === '') return;
      // The buckets of the read before: best effort (a leftover is never read, its generation being gone).
      for (let index = 0; index < VERDICT_BUCKETS; index++)
        await keyv.delete(bucketKey(old.generation, index)).catch(() => false);
    },
    async noteFailure(lastError) {
      const old = await meta();
      const summary: VerdictSummary = {
        ...(old?.summary ?? { counts: { approved: 0, pending: 0, disapproved: 0 }, topIssues: [] }),
        lastError,
      };
      await keyv.set(metaKey, { account: options.account, generation: old?.generation ?? '', summary } satisfies StoredMeta);
    },
    async summary() {
      return (await meta())?.summary;
    },
    async verdict(offerId) {
      const stored = await meta();
      if (stored === undefined || stored.generation === '') return undefined;
      const verdicts = await bucket(stored.generation, bucketOf(offerId));
      return verdicts.find((verdict) => verdict.offerId === offerId);
    },
  };
}
