import type { createRedisClient } from '../store/create-keyv.js';

/** The node-redis client `@keyv/redis` is built on, used directly for what keyv cannot do (docs/scale-out.md). */
export type RedisClient = ReturnType<typeof createRedisClient>;

/**
 * Redis keys of the group's coordination. They live beside keyv's keys (keyv prefixes its own with its
 * namespace), as plain Redis values so that scripts can compare and set them atomically.
 */
export const GROUP_KEYS = {
  /** `instance|token` of the leader; expires unless renewed. */
  lease: 'catalog-bridge:group:lease',
  /** The fencing-token sequence: every new lease gets the next number. */
  fence: 'catalog-bridge:group:fence',
  /** The version the change stream ends on: a stock change is appended only onto it (compare-and-set). */
  head: 'catalog-bridge:group:head',
  /** Catalog changes, in order: new families (`full`) and stock changes (`stock`). */
  changes: 'catalog-bridge:group:changes',
  /** Pub/sub: `POST /admin/sync` on a follower asks the leader to run a job. */
  syncRequests: 'catalog-bridge:group:sync-requests',
  syncReplies: (id: string) => `catalog-bridge:group:sync-replies:${id}`,
  /** The store's pointer of a version list (`catalog`, `internal`) and its change-stream position. */
  pointer: (prefix: string) => `catalog-bridge:${prefix}:pointer`,
  pointerPosition: (prefix: string) => `catalog-bridge:${prefix}:pointer-position`,
  /** Accepted webhook events, handed out by a consumer group. */
  inbox: 'catalog-bridge:inbox:events',
  inboxGroup: 'bridges',
  /** A delivered event's dedupe key, set-if-absent with a TTL. */
  seen: (id: string) => `catalog-bridge:inbox:seen:${id}`,
  /** The push outbox (docs/decisions/0013-channel-push.md, section 3): the last version enqueued. */
  pushCursor: 'catalog-bridge:push:cursor',
  /** Hash: target → `mask|gen|sinceMs|attempts|lastError`. */
  pushPending: (channel: string) => `catalog-bridge:push:${channel}:pending`,
  /** Sorted set: target by due time (a claim's lease re-scores it), of the live changes (claimed first). */
  pushDue: (channel: string) => `catalog-bridge:push:${channel}:due`,
  /** Sorted set: as `pushDue`, of the reconciliation's pure re-sends (mask exactly FULL), claimed after. */
  pushDueLow: (channel: string) => `catalog-bridge:push:${channel}:due-low`,
  /** Sorted set: target by `sinceMs`, for the oldest pending age. */
  pushSince: (channel: string) => `catalog-bridge:push:${channel}:since`,
  /** Hash: `paused`, `rejected` (count), `state` (JSON of the channel's status). */
  pushState: (channel: string) => `catalog-bridge:push:${channel}:state`,
} as const;

/** Field/value pairs of a stream entry as Redis returns them (`[field, value, field, value…]`). */
export function fieldsOf(raw: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (!Array.isArray(raw)) return fields;
  for (let i = 0; i + 1 < raw.length; i += 2) fields[String(raw[i])] = String(raw[i + 1]);
  return fields;
}

/** Stream entries (`[[id, [field, value…]], …]`) as ids and fields. */
export function entriesOf(raw: unknown): { readonly id: string; readonly fields: Record<string, string> }[] {
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((entry): entry is [unknown, unknown] => Array.isArray(entry) && entry.length >= 2)
    .map(([id, fields]) => ({ id: String(id), fields: fieldsOf(fields) }));
}

/** The entries of the one stream an `XREAD`/`XREADGROUP` asked for (`[[stream, entries]]`, or null). */
export function streamReplyEntries(raw: unknown): ReturnType<typeof entriesOf> {
  if (!Array.isArray(raw) || raw.length === 0) return [];
  const first = raw[0] as unknown;
  return Array.isArray(first) ? entriesOf(first[1]) : [];
}

/** Whether `a` comes after `b` as stream ids (`ms-seq`). */
export function streamIdAfter(a: string, b: string): boolean {
  const [aMs = 0, aSeq = 0] = a.split('-').map(Number);
  const [bMs = 0, bSeq = 0] = b.split('-').map(Number);
  return aMs === bMs ? aSeq > bSeq : aMs > bMs;
}
