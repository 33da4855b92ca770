import { randomUUID } from 'node:crypto';
import { settledWithin } from '../../core/async/settled-within.js';
import type { PushOutbox } from '../../core/push/outbox.js';
import type { ChangeJournal } from '../../services/catalog/change-journal.js';
import type { GroupSwitch } from '../../services/catalog/group-switch.js';
import type { GroupRedis, RemoteRun } from '../../services/group/group-redis.js';
import type { LeaderLease } from '../../services/group/leader-lease.js';
import type { WebhookInbox } from '../../services/webhooks/webhook-inbox.js';
import { createRedisPushOutbox } from '../push/redis-push-outbox.js';
import { createRedisClient } from '../store/create-keyv.js';
import type { PointerBackend } from '../store/keyv-catalog-store.js';
import { createChangeJournal } from './redis-change-journal.js';
import { GROUP_KEYS, type RedisClient } from './redis-keys.js';
import { createRedisLease } from './redis-lease.js';
import { createFencedPointer } from './redis-pointer.js';
import { createGroupSwitch } from './redis-switch.js';
import { createRedisWebhookInbox, type RedisInboxOptions } from './redis-webhook-inbox.js';

/** Several instances on one Redis: the parts of the group's coordination (docs/scale-out.md). */
export interface RedisGroup extends GroupRedis {
  readonly instance: string;
  readonly lease: LeaderLease;
  readonly journal: ChangeJournal;
  readonly switching: GroupSwitch;
  /** The pointer of a version list, moved only under the lease. */
  pointer(prefix: string, fallback: PointerBackend): PointerBackend;
  inbox<Event>(options: Omit<RedisInboxOptions, 'consumer'>): WebhookInbox<Event>;
  /**
   * The channel push's outbox on the group's command connection (docs/decisions/0013-channel-push.md, section
   * 3); its `close` leaves the connection open: `close` here closes it.
   */
  pushOutbox(): PushOutbox;
  /** On the leader: runs the jobs other instances ask for, until `stop` is called. */
  serveJobRequests(run: (job: string) => Promise<unknown>): Promise<{ stop(): Promise<void> }>;
  /**
   * Asks the leader to run `job` and waits for its answer; `undefined` when no leader listens (the caller
   * may take the lease and run it itself).
   */
  requestJob(job: string, timeoutMs: number): Promise<RemoteRun | undefined>;
  /** Whether Redis answers now. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Opens the group's connections: one for commands, one for each blocking read (the change stream, the
 * inbox), one for pub/sub. Each reconnects by itself (`createRedisClient`).
 */
export function openRedisGroup(url: string, options: { readonly instance: string; readonly leaseMs: number }): RedisGroup {
  const { instance } = options;
  const client = createRedisClient(url);
  const journalReader = client.duplicate();
  const inboxReader = client.duplicate();
  const subscriber = client.duplicate();
  const clients: RedisClient[] = [client, journalReader, inboxReader, subscriber];
  for (const each of clients) each.on('error', () => undefined);
  // Not awaited: an unreachable Redis at start is waited for by the store's watch; commands queue meanwhile.
  for (const each of clients) each.connect().catch(() => undefined);
  const lease = createRedisLease(client, instance, options.leaseMs);
  const journal = createChangeJournal(client, journalReader);
  const switching = createGroupSwitch(client, lease, instance, options.leaseMs);
  let inboxes: WebhookInbox<unknown>[] = [];

  return {
    instance,
    lease,
    journal,
    switching,
    pointer: (prefix, fallback) => createFencedPointer(client, lease, prefix, fallback),
    inbox<Event>(inboxOptions: Omit<RedisInboxOptions, 'consumer'>) {
      const inbox = createRedisWebhookInbox<Event>(client, inboxReader, { ...inboxOptions, consumer: instance });
      inboxes = [...inboxes, inbox as WebhookInbox<unknown>];
      return inbox;
    },
    pushOutbox: () => createRedisPushOutbox(client),
    async serveJobRequests(run) {
      const listener = (message: string) => {
        const request = parseRequest(message);
        if (request === undefined) return;
        run(request.job)
          .then(
            (result) => client.publish(GROUP_KEYS.syncReplies(request.id), JSON.stringify({ ok: true, result })),
            (error: unknown) =>
              client.publish(GROUP_KEYS.syncReplies(request.id), JSON.stringify({ ok: false, error: String(error) })),
          )
          // Redis away: the asking instance times out and says so.
          .catch(() => undefined);
      };
      await subscriber.subscribe(GROUP_KEYS.syncRequests, listener);
      return { stop: () => subscriber.unsubscribe(GROUP_KEYS.syncRequests, listener) };
    },
    async requestJob(job, timeoutMs) {
      const id = randomUUID();
      const channel = GROUP_KEYS.syncReplies(id);
      let answer: (reply: RemoteRun) => void = () => undefined;
      const replied = new Promise<RemoteRun>((resolve) => {
        answer = resolve;
      });
      const listener = (message: string) => answer(parseReply(message));
      await subscriber.subscribe(channel, listener);
      try {
        const receivers = Number(await client.publish(GROUP_KEYS.syncRequests, JSON.stringify({ id, job })));
        if (receivers === 0) return undefined;
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<RemoteRun>((resolve) => {
          timer = setTimeout(() => resolve({ ok: false, error: `the leader did not answer within ${timeoutMs} ms` }), timeoutMs);
        });
        try {
          return await Promise.race([replied, timedOut]);
        } finally {
          clearTimeout(timer);
        }
      } finally {
        await subscriber.unsubscribe(channel, listener).catch(() => undefined);
      }
    },
    async ping() {
      try {
        await client.ping();
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      for (const inbox of inboxes) await inbox.close().catch(() => undefined);
      // A graceful close waits for the replies of commands in flight; with Redis away, they are dropped.
      await Promise.all(
        clients.map(async (each) => {
          const closing = each.close().catch(() => undefined);
          await settledWithin(closing, 1_000);
          if (each.isOpen) each.destroy();
        }),
      );
    },
  };
}

function parseRequest(message: string): { readonly id: string; readonly job: string } | undefined {
  try {
    const parsed = JSON.parse(message) as { id?: unknown; job?: unknown };
    return typeof parsed.id === 'string' && typeof parsed.job === 'string' ? { id: parsed.id, job: parsed.job } : undefined;
  } catch {
    return undefined;
  }
}

function parseReply(message: string): RemoteRun {
  try {
    const parsed = JSON.parse(message) as RemoteRun;
    return typeof parsed.ok === 'boolean' ? parsed : { ok: false, error: 'malformed answer from the leader' };
  } catch {
    return { ok: false, error: 'malformed answer from the leader' };
  }
}
