import type { FeedChunks, FeedReport } from '../../core/feeds/feed-report.js';

/** One feed of a lockstep pass: its render, how far it has read the catalog, and where its text goes. */
export interface LockstepFeed {
  readonly chunks: FeedChunks;
  /** How many of the catalog's products the render has read so far. */
  position(): number;
  write(part: string): void;
}

/**
 * Drives several feed renders over one catalog side by side, always advancing the one furthest behind, so
 * that they all read the same few chunks of the catalog at about the same time (`chunk-window.ts`): one parse
 * of each chunk serves every feed of the pass, and no render holds more of the catalog than its window.
 * A render gives back a part at a time (~64 K characters), so the feeds stay within a few chunks of each
 * other. Reports come in the order of `feeds`; a render that throws stops the pass.
 */
export function renderInLockstep(feeds: readonly LockstepFeed[]): FeedReport[] {
  const reports = new Array<FeedReport | undefined>(feeds.length);
  const open = new Set(feeds.keys());
  while (open.size > 0) {
    let behind = -1;
    let lowest = Number.POSITIVE_INFINITY;
    for (const index of open) {
      const position = (feeds[index] as LockstepFeed).position();
      if (position < lowest) {
        lowest = position;
        behind = index;
      }
    }
    const feed = feeds[behind] as LockstepFeed;
    const next = feed.chunks.next();
    if (next.done === true) {
      reports[behind] = next.value;
      open.delete(behind);
    } else {
      feed.write(next.value);
    }
  }
  return reports as FeedReport[];
}
