import { randomBytes } from 'node:crypto';
import type { Keyv } from 'keyv';
import { z } from 'zod';
import { bucketOf, EMPTY_COUNTS, type VerdictSummary } from '../../core/push/channel-verdicts.js';
import type { GoogleVerdict } from '../../core/push/google-product-status.js';
import type { ProductVerdict, VerdictStore } from '../../services/push/google-verdicts.js';

/**
 * A channel's verdicts in the catalog's store (docs/channel-push.md, "Google's verdicts"): the verdicts in
 * buckets by offer id (as many as the read needs for ~150 a bucket), each bucket one JSON text, so a product
 * page parses one small text and a read is written a bucket at a time. Texts, not arrays: keyv's own
 * serializer walks an array value in JavaScript, several times slower than JSON.parse.
 * - `…:pointer` names the read in use (its generation and bucket count): small, what a product page reads.
 * - `…:meta` holds that read's summary (counts, top issues, Google's issue texts: up to tens of kilobytes),
 *   read by the follows and, for a product with issues, for their texts.
 * - `…:writing` names a publish under way; a publish stopped half-way leaves it, and the next one sweeps its
 *   buckets (whichever account wrote them).
 * A read's buckets are written under a generation of their own, then its summary, then the pointer: a read
 * that stops half-way never mixes with the verdicts in use. A failed read is noted under a key of its own, so
 * it never rewrites the summary another instance just published. Scoped by the account, so another account's
 * verdicts are never shown; what is read back is checked, a value of another shape counts as absent.
 */

const Generation = z.object({ generation: z.string().min(1), buckets: z.number().int().positive() });
const PointerSchema = Generation.extend({ account: z.string() });
/** The summary's key; a store written by 0.2.0 holds the pointer's fields here too (read when no pointer is). */
const MetaSchema = z.object({
  account: z.string(),
  generation: z.string(),
  buckets: z.number().int().positive().optional(),
  // The fields the overview and the warnings rely on; the rest is the bridge's own JSON, passed as written.
  summary: z.looseObject({
    counts: z.object({ approved: z.number(), pending: z.number(), disapproved: z.number() }),
    topIssues: z.array(z.looseObject({ code: z.string(), items: z.number(), example: z.string() })),
  }),
});
const ErrorSchema = z.object({ account: z.string(), at: z.string(), message: z.string() });

type Pointer = z.infer<typeof PointerSchema>;

/** Buckets read lately, kept to spare a product page the store when it is shown again. */
const CACHED_BUCKETS = 8;

export function createKeyvVerdictStore(
  keyv: Keyv,
  options: { readonly channel: string; readonly account: string },
): VerdictStore {
  const prefix = `verdicts:${options.channel}`;
  const pointerKey = `${prefix}:pointer`;
  const metaKey = `${prefix}:meta`;
  const writingKey = `${prefix}:writing`;
  const errorKey = `${prefix}:last-error`;
  const bucketKey = (generation: string, bucket: number) => `${prefix}:${generation}:${bucket}`;
  const cache = new Map<string, readonly GoogleVerdict[]>();

  async function read<T>(key: string, schema: z.ZodType<T>): Promise<T | undefined> {
    const parsed = schema.safeParse(await keyv.get(key));
    return parsed.success ? parsed.data : undefined;
  }

  async function meta(): Promise<
    { readonly generation: string; readonly buckets?: number | undefined; readonly summary: VerdictSummary } | undefined
  > {
    const stored = await read(metaKey, MetaSchema);
    if (stored?.account !== options.account) return undefined;
    // Checked above for what its readers rely on; written by this store from a `VerdictSummary`.
    return { ...stored, summary: stored.summary as unknown as VerdictSummary };
  }

  async function pointer(): Promise<Pointer | undefined> {
    const stored = await read(pointerKey, PointerSchema);
    if (stored !== undefined) return stored.account === options.account ? stored : undefined;
    // A store written before the pointer had its own key.
    const old = await meta();
    return old?.buckets === undefined
      ? undefined
      : { account: options.account, generation: old.generation, buckets: old.buckets };
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
    // Best effort: a leftover is never read (its generation is not the pointer's), and the next publish retries.
    for (let index = 0; index < buckets; index++) await keyv.delete(bucketKey(generation, index)).catch(() => false);
  }

  async function product(offerId: string): Promise<ProductVerdict> {
    const current = await pointer();
    if (current === undefined) return {};
    const verdicts = await bucket(current.generation, bucketOf(offerId, current.buckets));
    const verdict = verdicts.find((candidate) => candidate.offerId === offerId);
    if (verdict === undefined) return {};
    if (verdict.issues.length === 0) return { verdict };
    // The issue texts of the same read: the summary is written before the pointer names its read.
    const stored = await meta();
    const issueTexts = stored?.generation === current.generation ? stored.summary.issueTexts : undefined;
    return { verdict, ...(issueTexts === undefined ? {} : { issueTexts }) };
  }

  return {
    async publish({ count, buckets }, summary) {
      const before = await pointer();
      // A publish stopped half-way (this account's or another's): its buckets go first.
      const stopped = await read(writingKey, Generation);
      if (stopped !== undefined && stopped.generation !== before?.generation) {
        await deleteGeneration(stopped.generation, stopped.buckets);
      }
      const generation = randomBytes(6).toString('hex');
      await keyv.set(writingKey, { generation, buckets: count });
      for (const [index, text] of buckets) await keyv.set(bucketKey(generation, index), text);
      await keyv.set(metaKey, { account: options.account, generation, summary });
      await keyv.set(pointerKey, { account: options.account, generation, buckets: count } satisfies Pointer);
      await keyv.delete(writingKey);
      await keyv.delete(errorKey);
      if (before !== undefined) await deleteGeneration(before.generation, before.buckets);
    },
    async noteFailure(error) {
      await keyv.set(errorKey, { account: options.account, ...error });
    },
    async summary() {
      const [stored, error] = await Promise.all([meta(), read(errorKey, ErrorSchema)]);
      const failed = error?.account === options.account ? error : undefined;
      if (stored === undefined && failed === undefined) return undefined;
      const summary: VerdictSummary = stored?.summary ?? { counts: EMPTY_COUNTS, topIssues: [] };
      return failed === undefined ? summary : { ...summary, lastError: { at: failed.at, message: failed.message } };
    },
    verdict: async (offerId) => (await product(offerId)).verdict,
    product,
  };
}
