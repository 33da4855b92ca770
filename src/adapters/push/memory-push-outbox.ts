import {
  applyStatePatch,
  type ClaimedRow,
  isLowPriority,
  mergeMask,
  type OutboxRow,
  type PushChannelState,
  type PushOutbox,
} from '../../core/push/outbox.js';
import type { PushChannel } from '../../core/push/push-channel.js';

/**
 * The outbox in this process's memory (docs/decisions/0013-channel-push.md, section 3): for unit tests and
 * `memory://` stores. Same contract as the SQLite and Redis outboxes; lost with the process.
 */
export function createMemoryPushOutbox(): PushOutbox {
  const rows = new Map<PushChannel, Map<string, OutboxRow>>();
  const rejected = new Map<PushChannel, number>();
  const paused = new Set<PushChannel>();
  const states = new Map<PushChannel, PushChannelState>();
  let cursor: string | undefined;

  function rowsOf(channel: PushChannel): Map<string, OutboxRow> {
    let channelRows = rows.get(channel);
    if (channelRows === undefined) {
      channelRows = new Map();
      rows.set(channel, channelRows);
    }
    return channelRows;
  }

  return {
    async enqueue(expectedCursor, newCursor, updates) {
      if (cursor !== expectedCursor) return { ok: false, reason: 'stale-cursor', cursor };
      for (const update of updates) {
        const channelRows = rowsOf(update.channel);
        const row = channelRows.get(update.target);
        channelRows.set(
          update.target,
          row === undefined
            ? {
                channel: update.channel,
                target: update.target,
                mask: update.mask,
                gen: 1,
                sinceMs: update.atMs,
                dueMs: update.atMs,
                attempts: 0,
              }
            : { ...row, mask: mergeMask(row.mask, update.mask), gen: row.gen + 1, dueMs: Math.min(row.dueMs, update.atMs) },
        );
      }
      cursor = newCursor;
      return { ok: true };
    },

    async claim(channel, now, limit, leaseMs) {
      // Live changes first, then re-sends; each earliest due first, ties by target (the SQLite order).
      const rank = (row: OutboxRow) => (isLowPriority(row.mask) ? 1 : 0);
      const due = [...rowsOf(channel).values()]
        .filter((row) => row.dueMs <= now)
        .sort((a, b) => rank(a) - rank(b) || a.dueMs - b.dueMs || (a.target < b.target ? -1 : a.target > b.target ? 1 : 0))
        .slice(0, Math.max(0, limit));
      const claimed: ClaimedRow[] = due.map((row) => ({ ...row, dueMs: now + leaseMs }));
      for (const row of claimed) rowsOf(channel).set(row.target, row);
      return claimed;
    },

    async ack(channel, target, gen) {
      const row = rowsOf(channel).get(target);
      if (row?.gen !== gen) return false;
      rowsOf(channel).delete(target);
      return true;
    },

    async retry(channel, target, gen, dueMs, error) {
      const row = rowsOf(channel).get(target);
      if (row === undefined) return;
      rowsOf(channel).set(target, {
        ...row,
        attempts: row.attempts + 1,
        lastError: error,
        dueMs: row.gen === gen ? dueMs : row.dueMs,
      });
    },

    async reject(channel, target, gen, error) {
      // Counted whether or not the row is still there: the channel refused an item.
      rejected.set(channel, (rejected.get(channel) ?? 0) + 1);
      const row = rowsOf(channel).get(target);
      if (row === undefined) return false;
      if (row.gen !== gen) {
        rowsOf(channel).set(target, { ...row, lastError: error });
        return false;
      }
      rowsOf(channel).delete(target);
      return true;
    },

    async stats(channel) {
      const channelRows = [...rowsOf(channel).values()];
      const oldest = channelRows.reduce<number | undefined>(
        (min, row) => (min === undefined || row.sinceMs < min ? row.sinceMs : min),
        undefined,
      );
      const counted = { pending: channelRows.length, rejected: rejected.get(channel) ?? 0 };
      return oldest === undefined ? counted : { ...counted, oldestSinceMs: oldest };
    },

    async cursor() {
      return cursor;
    },

    async paused(channel) {
      return paused.has(channel);
    },

    async setPaused(channel, value) {
      if (value) paused.add(channel);
      else paused.delete(channel);
    },

    async state(channel) {
      return structuredClone(states.get(channel) ?? {});
    },

    async patchState(channel, patch) {
      states.set(channel, applyStatePatch(states.get(channel) ?? {}, structuredClone(patch)));
    },

    async close() {},
  };
}
