import { setTimeout as sleep } from 'node:timers/promises';
import { settledWithin } from '../../core/async/settled-within.js';
import type { InboxEntry, SharedInboxStats, WebhookInbox } from '../../services/webhooks/webhook-inbox.js';
import { DEFAULT_DEDUPE_TTL_MS, inboxIdOf } from '../store/inbox-ids.js';
import { entriesOf, GROUP_KEYS, type RedisClient, streamReplyEntries } from './redis-keys.js';

/** Dedupe and store in one step: an event is in the stream exactly when its dedupe key was set by this call. */
const ACCEPT = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return false end
return redis.call('XADD', KEYS[2], '*', 'entry', ARGV[2])`;

/** Acknowledges and deletes completed events together: none is left acknowledged but still in the stream. */
const ACKNOWLEDGE = `
redis.call('XACK', KEYS[1], ARGV[1], unpack(ARGV, 2))
return redis.call('XDEL', KEYS[1], unpack(ARGV, 2))`;

export interface RedisInboxOptions {
  readonly source: string;
  /** This instance's consumer name in the group. */
  readonly consumer: string;
  /** An event handed to an instance that has not completed it for this long is taken over by another. */
  readonly claimIdleMs: number;
  readonly dedupeTtlMs?: number;
  readonly onError?: (error: unknown, what: string) => void;
  /** Events left in the inbox of an earlier release (keyv), re-accepted here once at start. */
  readonly legacy?: WebhookInbox<unknown>;
}

/**
 * The webhook inbox shared by a group on Redis (docs/scale-out.md): dedupe by an atomic set-if-absent with
 * a TTL, accepted events in a stream before the `200`, and a consumer group that hands each event to one
 * instance. An instance acknowledges (and deletes) an event once its change is published; events an
 * instance holds for longer than `claimIdleMs` (it died) are claimed by another. An instance keeps the
 * events it is still working on by claiming them for itself again, which resets their idle time.
 */
export function createRedisWebhookInbox<Event>(
  client: RedisClient,
  reader: RedisClient,
  options: RedisInboxOptions,
): WebhookInbox<Event> {
  const { source, consumer, claimIdleMs } = options;
  const ttl = options.dedupeTtlMs ?? DEFAULT_DEDUPE_TTL_MS;
  const stream = GROUP_KEYS.inbox;
  const group = GROUP_KEYS.inboxGroup;
  /** Event id → stream id of the events handed to this instance and not completed yet. */
  const held = new Map<string, string>();
  let claimed = 0;
  /** Stream ids completed here whose acknowledgement failed (Redis away): retried, never handed out again. */
  const unacknowledged = new Set<string>();
  let claiming = false;
  let stopped = false;
  let consuming: Promise<void> | undefined;
  let claimTimer: NodeJS.Timeout | undefined;
  const report = (error: unknown, what: string) => options.onError?.(error, what);

  async function ensureGroup(): Promise<void> {
    try {
      await client.sendCommand(['XGROUP', 'CREATE', stream, group, '0', 'MKSTREAM']);
    } catch (error) {
      if (!(error instanceof Error && error.message.includes('BUSYGROUP'))) throw error;
    }
  }

  /** The entries' events, of this source; another source's are dropped from the stream. */
  async function take(
    entries: readonly { readonly id: string; readonly fields: Record<string, string> }[],
  ): Promise<InboxEntry<Event>[]> {
    const taken: InboxEntry<Event>[] = [];
    const foreign: string[] = [];
    for (const { id, fields } of entries) {
      const entry = parseEntry<Event>(fields['entry']);
      if (entry === undefined || entry.source !== source) {
        foreign.push(id);
        continue;
      }
      held.set(entry.id, id);
      taken.push(entry);
    }
    if (foreign.length > 0) await acknowledge(foreign);
    return taken;
  }

  /** Acknowledged and removed in one step; what fails is tried again by the next claim round. */
  async function acknowledge(streamIds: readonly string[]): Promise<void> {
    try {
      await client.eval(ACKNOWLEDGE, { keys: [stream], arguments: [group, ...streamIds] });
      for (const id of streamIds) unacknowledged.delete(id);
    } catch (error) {
      for (const id of streamIds) unacknowledged.add(id);
      throw error;
    }
  }

  async function readLoop(deliver: (entries: readonly InboxEntry<Event>[]) => void): Promise<void> {
    let failures = 0;
    while (!stopped) {
      try {
        if (failures > 0) await ensureGroup();
        const raw = await reader.sendCommand([
          'XREADGROUP',
          'GROUP',
          group,
          consumer,
          'COUNT',
          '200',
          'BLOCK',
          '1000',
          'STREAMS',
          stream,
          '>',
        ]);
        const entries = await take(streamReplyEntries(raw));
        failures = 0;
        if (entries.length > 0) deliver(entries);
      } catch (error) {
        if (stopped) return;
        // Redis away, or restarted empty (no group): try again, creating the group.
        if (failures === 0) report(error, 'reading the shared webhook inbox');
        failures += 1;
        await sleep(Math.min(250 * failures, 2_000));
      }
    }
  }

  /**
   * Resets the idle time of the events this instance still works on, so that nobody takes them over;
   * only those the group still counts as this instance's (another may have taken some over while this one
   * was cut off from Redis: those are its now).
   */
  async function keepOwn(): Promise<void> {
    if (held.size === 0) return;
    const pending = (await client.sendCommand([
      'XPENDING',
      stream,
      group,
      '-',
      '+',
      String(held.size + 100),
      consumer,
    ])) as unknown[];
    const owned = new Set(pending.map((row) => String((row as unknown[])[0])));
    const keep: string[] = [];
    for (const [id, streamId] of held) {
      if (owned.has(streamId)) keep.push(streamId);
      else held.delete(id);
    }
    if (keep.length > 0) await client.sendCommand(['XCLAIM', stream, group, consumer, '0', ...keep, 'JUSTID']);
  }

  /** Takes over events another instance held past the claim timeout, and keeps this one's own. */
  async function claim(deliver: (entries: readonly InboxEntry<Event>[]) => void): Promise<void> {
    if (unacknowledged.size > 0) await acknowledge([...unacknowledged]);
    await keepOwn();
    let start = '0-0';
    for (let round = 0; round < 10; round += 1) {
      const reply = (await client.sendCommand([
        'XAUTOCLAIM',
        stream,
        group,
        consumer,
        String(claimIdleMs),
        start,
        'COUNT',
        '100',
      ])) as unknown[];
      const mine = new Set(held.values());
      const entries = entriesOf(reply[1]).filter((entry) => !mine.has(entry.id) && !unacknowledged.has(entry.id));
      const taken = await take(entries);
      claimed += taken.length;
      if (taken.length > 0) deliver(taken);
      start = String(reply[0] ?? '0-0');
      if (start === '0-0') return;
    }
  }

  const inbox: WebhookInbox<Event> = {
    async accept(dedupeKey, event, receivedAt) {
      const id = inboxIdOf(source, dedupeKey);
      const entry: InboxEntry<Event> = { id, dedupeKey, receivedAt: receivedAt.toISOString(), event, source };
      const added = await client.eval(ACCEPT, {
        keys: [GROUP_KEYS.seen(id), stream],
        arguments: [String(ttl), JSON.stringify(entry)],
      });
      return { entry, duplicate: added === null };
    },
    // Handed out by `shared.consume`.
    pending: async () => [],
    discardForeign: async () => 0,
    async complete(ids) {
      const streamIds = ids.flatMap((id) => {
        const streamId = held.get(id);
        return streamId === undefined ? [] : [streamId];
      });
      // No longer this instance's to keep, whether the acknowledgement goes through now or later.
      for (const id of ids) held.delete(id);
      if (streamIds.length > 0) await acknowledge(streamIds);
    },
    async close() {
      if (stopped) return;
      stopped = true;
      if (claimTimer !== undefined) clearInterval(claimTimer);
      // The blocking read ends within its block time (bounded: while Redis is away it waits for its
      // command's deadline); the connection is closed by the group.
      await settledWithin(consuming, 500);
      await settledWithin(options.legacy?.close(), 1_000);
    },
    shared: {
      consume(deliver) {
        if (consuming !== undefined) return;
        consuming = (async () => {
          await moveLegacy(inbox, options.legacy, report);
          await ensureGroup().catch((error: unknown) => report(error, 'creating the webhook consumer group'));
          // Closed while the group was being created: nothing to start.
          if (stopped) return;
          claimTimer = setInterval(
            () => {
              if (claiming) return;
              claiming = true;
              claim(deliver)
                .catch((error: unknown) => report(error, 'claiming webhook events of other instances'))
                .finally(() => {
                  claiming = false;
                });
            },
            Math.max(200, Math.floor(claimIdleMs / 3)),
          );
          claimTimer.unref();
          await readLoop(deliver);
        })();
      },
      async stats(): Promise<SharedInboxStats> {
        const depth = Number(await client.sendCommand(['XLEN', stream]));
        let pending = 0;
        try {
          const summary = (await client.sendCommand(['XPENDING', stream, group])) as unknown[];
          pending = Number(summary[0] ?? 0);
        } catch {
          // No group yet.
        }
        return { depth, pending, claimed };
      },
    },
  };
  return inbox;
}

/** Events an earlier release stored in its keyv inbox go into the stream (their dedupe keys are kept). */
async function moveLegacy<Event>(
  inbox: WebhookInbox<Event>,
  legacy: WebhookInbox<unknown> | undefined,
  report: (error: unknown, what: string) => void,
): Promise<void> {
  if (legacy === undefined) return;
  try {
    const entries = await legacy.pending();
    for (const entry of entries) {
      await inbox.accept(entry.dedupeKey, entry.event as Event, new Date(entry.receivedAt));
      await legacy.complete([entry.id]);
    }
  } catch (error) {
    report(error, 'moving webhook events of the keyv inbox into the stream');
  }
}

function parseEntry<Event>(raw: string | undefined): InboxEntry<Event> | undefined {
  if (raw === undefined) return undefined;
  try {
    const entry = JSON.parse(raw) as InboxEntry<Event>;
    return typeof entry.id === 'string' && typeof entry.receivedAt === 'string' ? entry : undefined;
  } catch {
    return undefined;
  }
}
