import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { FeedChunks, FeedReport } from './feed-report.js';

export interface CollectedFeed {
  readonly body: Buffer;
  readonly report: FeedReport;
}

/** UTF-8 parts of a body, encoded as they arrive: the only large allocation is the final body. */
function createBodyParts(): { add(text: string): void; body(): Buffer } {
  const parts: Buffer[] = [];
  let length = 0;
  return {
    add(text) {
      const part = Buffer.from(text, 'utf8');
      parts.push(part);
      length += part.length;
    },
    body: () => Buffer.concat(parts, length),
  };
}

/** Drains a renderer into one UTF-8 body (what the feed cache keeps anyway). */
export function collectFeed(chunks: FeedChunks): CollectedFeed {
  const parts = createBodyParts();
  for (;;) {
    const next = chunks.next();
    if (next.done === true) return { body: parts.body(), report: next.value };
    parts.add(next.value);
  }
}

/**
 * `collectFeed` without holding the event loop for long: after every `sliceMs` of work it lets other
 * requests be served (a 100,000-item feed takes about a second to render).
 */
export async function collectFeedAsync(chunks: FeedChunks, sliceMs = 15): Promise<CollectedFeed> {
  const parts = createBodyParts();
  let slice = performance.now();
  for (;;) {
    const next = chunks.next();
    if (next.done === true) return { body: parts.body(), report: next.value };
    parts.add(next.value);
    if (performance.now() - slice > sliceMs) {
      await yieldToEventLoop();
      slice = performance.now();
    }
  }
}
