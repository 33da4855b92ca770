import type { StockDelta } from '../../core/catalog/apply-stock.js';

/**
 * When each unit's article last had a sale applied, for a while: a stock export read before a sale must not
 * undo it (`stock-sync.ts`). Kept in time order (a repeated key moves to the end), so pruning drops from the
 * front; bounded by age and count.
 */
export interface RecentMovements {
  record(deltas: readonly Pick<StockDelta, 'unitCode' | 'articleId'>[], atMs: number): void;
  /** The keys (`movementKey`) with a sale applied at `fromMs` or later. */
  since(fromMs: number): ReadonlySet<string>;
}

/** Longer than any stock re-read takes (a re-read is bounded by the sync deadline). */
const KEEP_MS = 10 * 60_000;
const MAX_KEYS = 50_000;

export function movementKey(unit: string, articleId: string): string {
  return `${unit}\u0000${articleId}`;
}

export function createRecentMovements(keepMs = KEEP_MS, maxKeys = MAX_KEYS): RecentMovements {
  const appliedAt = new Map<string, number>();

  function prune(nowMs: number): void {
    for (const [key, at] of appliedAt) {
      if (at >= nowMs - keepMs && appliedAt.size <= maxKeys) break;
      appliedAt.delete(key);
    }
  }

  return {
    record(deltas, atMs) {
      for (const delta of deltas) {
        const key = movementKey(delta.unitCode, delta.articleId);
        appliedAt.delete(key);
        appliedAt.set(key, atMs);
      }
      prune(atMs);
    },
    since(fromMs) {
      const keys = new Set<string>();
      for (const [key, at] of appliedAt) if (at >= fromMs) keys.add(key);
      return keys;
    },
  };
}
