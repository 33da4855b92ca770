import type { FeedChunks, FeedReport } from './feed-report.js';

export interface CollectedFeed {
  readonly body: Buffer;
  readonly report: FeedReport;
}

/**
 * Drains a renderer into one UTF-8 body: each chunk is encoded as it arrives, so the only large
 * allocation is the final body (what the feed cache keeps anyway).
 */
export function collectFeed(chunks: FeedChunks): CollectedFeed {
  const parts: Buffer[] = [];
  let length = 0;
  for (;;) {
    const next = chunks.next();
    if (next.done === true) return { body: Buffer.concat(parts, length), report: next.value };
    const part = Buffer.from(next.value, 'utf8');
    parts.push(part);
    length += part.length;
  }
}
