/** Whether a new catalog version may replace the published one (docs/catalog-rules.md rule 8). */
export type PublishCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'empty' | 'shrink'; readonly message: string };

export interface CatalogSize {
  /** Number of products. */
  readonly count: number;
}

/**
 * Refuses to publish a catalog that is empty, or that has lost more than `maxShrink` (0-1, default
 * configuration 0.5) of the previous version's products. Losing exactly `maxShrink` is allowed
 * (1000 → 500 with 0.5 passes; 1000 → 400 is refused).
 *
 * An empty catalog is refused even when nothing was published yet: an empty article list is one of
 * the POS faults of docs/quality-bars.md, and publishing it would tell every channel to delist everything. Feeds keep
 * answering 503 until a non-empty catalog arrives; the sync report says why.
 *
 * @throws RangeError when `maxShrink` is not a number in [0, 1] (configuration validates it earlier).
 */
export function checkPublishable(previous: CatalogSize | undefined, next: CatalogSize, maxShrink: number): PublishCheck {
  if (!(maxShrink >= 0 && maxShrink <= 1)) throw new RangeError(`maxShrink must be within [0, 1], got ${maxShrink}`);
  if (next.count <= 0) {
    const message =
      previous === undefined || previous.count <= 0
        ? 'the new catalog is empty'
        : `the new catalog is empty; the published one has ${previous.count} products`;
    return { ok: false, reason: 'empty', message };
  }
  if (previous === undefined || previous.count <= 0) return { ok: true };
  const removed = previous.count - next.count;
  // A tiny tolerance keeps 0.57 × 100 (= 56.99999999999999) from refusing a removal of exactly 57.
  if (removed > maxShrink * previous.count + 1e-9) {
    const share = Math.round((removed / previous.count) * 1000) / 10;
    return {
      ok: false,
      reason: 'shrink',
      message: `the catalog would shrink from ${previous.count} to ${next.count} products (${share} %), more than the allowed ${maxShrink * 100} %`,
    };
  }
  return { ok: true };
}
