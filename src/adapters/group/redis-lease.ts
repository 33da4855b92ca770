import { randomBytes } from 'node:crypto';
import type { LeaderLease, LeaseHolder } from '../../services/group/leader-lease.js';
import { GROUP_KEYS, type RedisClient } from './redis-keys.js';

/** Takes the lease when nobody holds it, with the next fencing token in its value. */
const ACQUIRE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])
return token`;

/** Extends the lease only while it still holds this instance's value (compare-and-renew). */
const RENEW = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1`;

export function createRedisLease(client: RedisClient, instance: string, leaseMs: number): LeaderLease {
  // Unique per process even when two share an INSTANCE_ID (a copied deployment), and after a Redis
  // restarted empty begins the tokens at 1 again: a stale holder never matches a new one's value.
  const holderId = `${instance}#${randomBytes(4).toString('hex')}`;
  let value: string | undefined;
  return {
    held: () => value,
    async acquire() {
      const token = Number(
        await client.eval(ACQUIRE, { keys: [GROUP_KEYS.lease, GROUP_KEYS.fence], arguments: [holderId, String(leaseMs)] }),
      );
      if (!(token > 0)) return undefined;
      value = `${holderId}|${token}`;
      return token;
    },
    async renew() {
      const held = value;
      if (held === undefined) return false;
      const renewed = Number(await client.eval(RENEW, { keys: [GROUP_KEYS.lease], arguments: [held, String(leaseMs)] })) === 1;
      if (!renewed && value === held) value = undefined;
      return renewed;
    },
    async release() {
      const held = value;
      value = undefined;
      if (held !== undefined) await client.eval(RELEASE, { keys: [GROUP_KEYS.lease], arguments: [held] });
    },
    async holder() {
      const raw = await client.get(GROUP_KEYS.lease);
      return raw === null ? undefined : parseLeaseValue(String(raw));
    },
  };
}

export function parseLeaseValue(raw: string): LeaseHolder | undefined {
  const at = raw.lastIndexOf('|');
  if (at < 0) return undefined;
  const token = Number(raw.slice(at + 1));
  // The instance's name without the per-process suffix.
  const instance = raw.slice(0, at).replace(/#[0-9a-f]{8}$/, '');
  return Number.isSafeInteger(token) ? { instance, token } : undefined;
}
