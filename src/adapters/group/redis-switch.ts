import { setTimeout as sleep } from 'node:timers/promises';
import type { GroupSwitch } from '../../services/catalog/group-switch.js';
import type { LeaderLease } from '../../services/group/leader-lease.js';
import { LeaseLostError } from '../store/keyv-catalog-store.js';
import { GROUP_KEYS, type RedisClient } from './redis-keys.js';
import { CHANGE_STREAM_MAXLEN } from './redis-pointer.js';

/**
 * The group switches to a new catalog together: it becomes the change stream's head and gets a `serve`
 * entry, under the lease, once the instances have loaded it (or a wait ran out).
 */
const SWITCH = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('LEASE_LOST') end
redis.call('SET', KEYS[2], ARGV[2])
return redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', 'kind', 'serve', 'version', ARGV[2], 'source', ARGV[3])`;

/** How long an instance's heartbeat keeps it counted as a member, in lease times. */
const MEMBER_LEASES = 3;
/** How long a version's ready set is kept. */
const READY_TTL_MS = 10 * 60_000;

export function createGroupSwitch(client: RedisClient, lease: LeaderLease, instance: string, leaseMs: number): GroupSwitch {
  const readyKey = (version: string) => `catalog-bridge:group:ready:${version}`;
  const membersKey = 'catalog-bridge:group:members';

  async function otherMembers(): Promise<string[]> {
    const all = (await client.hGetAll(membersKey)) as Record<string, string>;
    const fresh = Date.now() - MEMBER_LEASES * leaseMs;
    const gone = Object.entries(all).filter(([, seen]) => Number(seen) < fresh - 3_600_000);
    if (gone.length > 0)
      await client.hDel(
        membersKey,
        gone.map(([name]) => name),
      );
    return Object.entries(all)
      .filter(([name, seen]) => name !== instance && Number(seen) >= fresh)
      .map(([name]) => name);
  }

  return {
    async heartbeat() {
      await client.hSet(membersKey, instance, String(Date.now()));
    },
    async markReady(version) {
      await client.sAdd(readyKey(version), instance);
      await client.pExpire(readyKey(version), READY_TTL_MS);
    },
    async waitReady(version, timeoutMs) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const members = await otherMembers();
        const ready = members.length === 0 ? [] : ((await client.sMembers(readyKey(version))) as string[]);
        const count = members.filter((member) => ready.includes(member)).length;
        if (count >= members.length || Date.now() >= until) return { ready: count, members: members.length };
        await sleep(50);
      }
    },
    async switchTo(version, source) {
      const held = lease.held();
      if (held === undefined)
        throw new LeaseLostError(`this instance does not hold the lease; the group was not switched to ${version}`);
      try {
        return String(
          await client.eval(SWITCH, {
            keys: [GROUP_KEYS.lease, GROUP_KEYS.head, GROUP_KEYS.changes],
            arguments: [held, version, source, String(CHANGE_STREAM_MAXLEN)],
          }),
        );
      } catch (error) {
        if (error instanceof Error && error.message.includes('LEASE_LOST')) {
          throw new LeaseLostError(`the lease lapsed; the group was not switched to ${version}`);
        }
        throw error;
      }
    },
  };
}
