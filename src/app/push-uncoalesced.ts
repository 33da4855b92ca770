import type { PushOutbox } from '../core/push/outbox.js';
import type { PayloadBuilder } from '../core/push/target-payloads.js';

/**
 * The push without coalescing, for `bench/channel-push.ts` only (never configurable): while `coalesce()`
 * answers false, every derived change gets an outbox row of its own (a unique suffix on its target, so no
 * merge) and every claim takes one row, so each change is its own request. It is the baseline that shows
 * what coalescing saves (docs/decisions/0013-channel-push.md, section 1); switching it at run time lets
 * one bench run send the first full catalog coalesced and then measure a burst each way.
 */

/** Separates a target from its per-change sequence number; targets never end with it. */
const SUFFIX = /~#\d+$/;

/** The target a builder and a channel know: without the per-change suffix. */
export function coalescedTarget(target: string): string {
  return target.replace(SUFFIX, '');
}

export function uncoalescedOutbox(outbox: PushOutbox, coalesce: () => boolean): PushOutbox {
  let sequence = 0;
  return {
    ...outbox,
    enqueue: (expectedCursor, newCursor, updates, fence) => {
      const first = sequence;
      if (!coalesce()) sequence += updates.length;
      const rows =
        first === sequence ? updates : updates.map((update, i) => ({ ...update, target: `${update.target}~#${first + i}` }));
      return outbox.enqueue(expectedCursor, newCursor, rows, fence);
    },
    claim: (channel, now, limit, leaseMs) => outbox.claim(channel, now, coalesce() ? limit : 1, leaseMs),
    // The spread copies no methods that read `this`: every outbox is a closure over its store.
    close: () => outbox.close(),
  };
}

/** The channel's builder, given the row's own target. */
export function uncoalescedPayloads<Payload>(build: PayloadBuilder<Payload>): PayloadBuilder<Payload> {
  return (row, snapshot) => build({ target: coalescedTarget(row.target), mask: row.mask }, snapshot);
}
