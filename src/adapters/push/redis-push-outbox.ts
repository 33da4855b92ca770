import type { ClaimedRow, EnqueueResult, PushChannelState, PushOutbox } from '../../core/push/outbox.js';
import { PUSH_CHANNELS, type PushChannel } from '../../core/push/push-channel.js';
import { GROUP_KEYS, type RedisClient } from '../group/redis-keys.js';
import { ACK, CLAIM, ENQUEUE, REJECT, RETRY } from './push-scripts.js';

/** The prefix of the state's fields in the channel's state hash (beside `paused` and the counters). */
const STATE_FIELD = 'state.';

const ROW = /^([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|(.*)$/s;

/**
 * The push outbox in Redis for a group (docs/decisions/0013-channel-push.md, section 3): every change is a
 * Lua script, so a merge, a claim's lease and a gen-checked ack are each atomic across instances. An
 * enqueue given a `fence` (the lease holder's `instance|token`) is refused unless the group lease still
 * holds it, so a leader paused past its lease cannot move the cursor. The client is the caller's: `close`
 * leaves it open.
 */
export function createRedisPushOutbox(client: RedisClient): PushOutbox {
  const channelKeys = (channel: PushChannel) => [
    GROUP_KEYS.pushPending(channel),
    GROUP_KEYS.pushDue(channel),
    GROUP_KEYS.pushDueLow(channel),
    GROUP_KEYS.pushSince(channel),
  ];

  async function script(source: string, keys: string[], args: string[]): Promise<unknown> {
    return client.eval(source, { keys, arguments: args });
  }

  return {
    async enqueue(expectedCursor, newCursor, updates, fence) {
      const encoded = updates.map((update) => [PUSH_CHANNELS.indexOf(update.channel), update.target, update.mask, update.atMs]);
      const reply = await script(
        ENQUEUE,
        [GROUP_KEYS.lease, GROUP_KEYS.pushCursor, ...PUSH_CHANNELS.flatMap(channelKeys)],
        [fence ?? '', expectedCursor === undefined ? '0' : '1', expectedCursor ?? '', newCursor, JSON.stringify(encoded)],
      );
      return toEnqueueResult(reply);
    },

    async claim(channel, now, limit, leaseMs, fence) {
      if (limit <= 0) return [];
      const [pending, due, low] = channelKeys(channel);
      const reply = await script(
        CLAIM,
        [pending ?? '', due ?? '', low ?? '', GROUP_KEYS.lease],
        [String(now), String(limit), String(leaseMs), fence ?? ''],
      );
      const flat = Array.isArray(reply) ? reply.map(String) : [];
      const claimed: ClaimedRow[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) claimed.push(toRow(channel, flat[i] ?? '', flat[i + 1] ?? '', now + leaseMs));
      return claimed;
    },

    async ack(channel, target, gen) {
      return Number(await script(ACK, channelKeys(channel), [target, String(gen)])) === 1;
    },

    async retry(channel, target, gen, dueMs, error) {
      const [pending, due, low] = channelKeys(channel);
      await script(RETRY, [pending ?? '', due ?? '', low ?? ''], [target, String(gen), String(dueMs), error]);
    },

    async reject(channel, target, gen, error) {
      const keys = [...channelKeys(channel), GROUP_KEYS.pushState(channel)];
      return Number(await script(REJECT, keys, [target, String(gen), error])) === 1;
    },

    async stats(channel) {
      // The hash and the since set hold every row, high or low priority.
      const [pending, , , since] = channelKeys(channel);
      const [count, oldest, rejected] = await Promise.all([
        client.hLen(pending ?? ''),
        client.zRangeWithScores(since ?? '', 0, 0),
        client.hGet(GROUP_KEYS.pushState(channel), 'rejected'),
      ]);
      const counted = { pending: Number(count), rejected: Number(rejected ?? 0) };
      const first = oldest[0];
      return first === undefined ? counted : { ...counted, oldestSinceMs: first.score };
    },

    async cursor() {
      const cursor = await client.get(GROUP_KEYS.pushCursor);
      return cursor === null ? undefined : String(cursor);
    },

    async paused(channel) {
      return (await client.hGet(GROUP_KEYS.pushState(channel), 'paused')) === '1';
    },

    async setPaused(channel, paused) {
      await client.hSet(GROUP_KEYS.pushState(channel), 'paused', paused ? '1' : '0');
    },

    async state(channel) {
      const fields = await client.hGetAll(GROUP_KEYS.pushState(channel));
      const state: Record<string, unknown> = {};
      for (const [field, value] of Object.entries(fields)) {
        if (field.startsWith(STATE_FIELD)) state[field.slice(STATE_FIELD.length)] = JSON.parse(String(value));
      }
      return state as PushChannelState;
    },

    async patchState(channel, patch) {
      // One hash field per state field: writers of different fields never overwrite each other.
      const key = GROUP_KEYS.pushState(channel);
      const set: Record<string, string> = {};
      const removed: string[] = [];
      for (const [field, value] of Object.entries(patch)) {
        if (value === null) removed.push(STATE_FIELD + field);
        else if (value !== undefined) set[STATE_FIELD + field] = JSON.stringify(value);
      }
      const multi = client.multi();
      if (Object.keys(set).length > 0) multi.hSet(key, set);
      if (removed.length > 0) multi.hDel(key, removed);
      await multi.exec();
    },

    async close() {},
  };
}

function toEnqueueResult(reply: unknown): EnqueueResult {
  const [status, has, cursor] = Array.isArray(reply) ? reply.map(String) : [];
  if (status === 'ok') return { ok: true };
  if (status === 'fenced') return { ok: false, reason: 'fenced' };
  if (status === 'stale') return { ok: false, reason: 'stale-cursor', cursor: has === '1' ? cursor : undefined };
  throw new Error(`unexpected reply of the push outbox's enqueue script: ${JSON.stringify(reply)}`);
}

function toRow(channel: PushChannel, target: string, value: string, dueMs: number): ClaimedRow {
  const match = ROW.exec(value);
  if (match === null) throw new Error(`malformed push outbox row for ${channel} ${target}`);
  const [, mask, gen, since, attempts, lastError] = match;
  const row = {
    channel,
    target,
    mask: Number(mask),
    gen: Number(gen),
    sinceMs: Number(since),
    dueMs,
    attempts: Number(attempts),
  };
  return lastError === undefined || lastError === '' ? row : { ...row, lastError };
}
