import { randomBytes } from 'node:crypto';
import type { Keyv } from 'keyv';
import { bucketOf, type VerdictSummary } from '../../core/push/channel-verdicts.js';
import type { GoogleVerdict } from '../../core/push/google-product-status.js';
import type { ProductVerdict, VerdictStore } from '../../services/push/google-verdicts.js';

/**
 * A channel's verdicts in the catalog's store (docs/channel-push.md, "Google's verdicts"): the summary under
 * one key, the verdicts in buckets by offer id (as many as the read needs for ~150 a bucket), each bucket one
 * JSON text, so a product page parses one small text and a read is written a bucket at a time. Texts, not
 * arrays: keyv's own serializer walks an array value in JavaScript, several times slower than JSON.parse.
 * A read's buckets are written under a generation of their own and the summary names it last: a read that
 * stops half-way never mixes with the verdicts in use, and its leftovers are swept by the next publish.
 * A failed read is noted under a key of its own, so it never rewrites the summary another instance just
 * published. Scoped by the account, so another account's verdicts are never shown.
 */

interface StoredMeta {
  readonly account: string;
  readonly generation: string;
  readonly buckets: number;
  readonly summary: VerdictSummary;
  /** A publish under way or stopped half-way: its buckets are deleted by the next publish. */
  readonly writing?: { readonly generation: string; readonly buckets: number };
}

interface StoredError {
  readonly account: string;
  readonly at: string;
  readonly message: string;
}

/** Buckets read lately, kept to spare a product page the store when it is shown again. */
const CACHED_BUCKETS = 8;

export function createKeyvVerdictStore(
  keyv: Keyv,
  options: { readonly channel: string; readonly account: string },
): VerdictStore {
  const prefix = `verdicts:${options.channel}`;
  const metaKey = `${prefix}:meta`;
  const errorKey = `${prefix}:last-error`;
  const bucketKey = (generation: string, bucket: number) => `${prefix}:${generation}:${bucket}`;
  const cache = new Map<string, readonly GoogleVerdict[]>();

  async function meta(): Promise<StoredMeta | undefined> {
    const stored = (await keyv.get(metaKey)) as StoredMeta | undefined;
    return stored?.account === options.account && typeof stored.generation === 'string' && typeof stored.buckets === 'number'
      ? stored
      : undefined;
  }

  async function lastError(): Promise<StoredError | undefined> {
    const stored = (await keyv.get(errorKey)) as StoredError | undefined;
    return stored?.account === options.account ? stored : undefined;
  }

  async function bucket(generation: string, index: number): Promise<readonly GoogleVerdict[]> {
    const key = bucketKey(generation, index);
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const text = (await keyv.get(key)) as string | undefined;
    const parsed: unknown = typeof text === 'string' ? JSON.parse(text) : [];
    const verdicts = Array.isArray(parsed) ? (parsed as GoogleVerdict[]) : [];
    cache.set(key, verdicts);
    if (cache.size > CACHED_BUCKETS) cache.delete(cache.keys().next().value as string);
    return verdicts;
  }

  async function deleteGeneration(generation: string, buckets: number): Promise<void> {
    // Best effort: a leftover is never read (its generation is not the summary's), and the next publish retries.
    for (let index = 0; index < buckets; index++) await keyv.delete(bucketKey(generation, index)).catch(() => false);
  }

  async function product(offerId: string): Promise<ProductVerdict> {
    const stored = await meta();
    if (stored === undefined) return {};
    const verdicts = await bucket(stored.generation, bucketOf(offerId, stored.buckets));
    const verdict = verdicts.find((candidate) => candidate.offerId === offerId);
    const { issueTexts } = stored.summary;
    return { ...(verdict === undefined ? {} : { verdict }), ...(issueTexts === undefined ? {} : { issueTexts }) };
  }

  return {
    async publish({ count, buckets }, summary) {
      const old = await meta();
      if (old?.writing !== undefined) await deleteGeneration(old.writing.generation, old.writing.buckets);
      const generation = randomBytes(6).toString('hex');
      if (old !== undefined) await keyv.set(metaKey, { ...old, writing: { generation, buckets: count } } satisfies StoredMeta);
      for (const [index, text] of buckets) await keyv.set(bucketKey(generation, index), text);
      await keyv.set(metaKey, { account: options.account, generation, buckets: count, summary } satisfies StoredMeta);
      await keyv.delete(errorKey);
      if (old !== undefined && old.generation !== '') await deleteGeneration(old.generation, old.buckets);
    },
    async noteFailure(error) {
      await keyv.set(errorKey, { account: options.account, ...error } satisfies StoredError);
    },
    async summary() {
      const [stored, error] = await Promise.all([meta(), lastError()]);
      if (stored === undefined && error === undefined) return undefined;
      const summary: VerdictSummary = stored?.summary ?? { counts: { approved: 0, pending: 0, disapproved: 0 }, topIssues: [] };
      return error === undefined ? summary : { ...summary, lastError: { at: error.at, message: error.message } };
    },
    verdict: async (offerId) => (await product(offerId)).verdict,
    product,
  };
}
