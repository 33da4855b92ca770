import type { LeaderLease } from '../../services/group/leader-lease.js';
import { LeaseLostError, type PointerBackend, type VersionPointer } from '../store/keyv-catalog-store.js';
import { GROUP_KEYS, type RedisClient } from './redis-keys.js';

/**
 * Moves a pointer only while the lease holds this instance's value (fencing: a leader that was paused past
 * its lease cannot publish). An announced version (a new catalog family) gets a `full` entry in the change
 * stream in the same script: the group loads it from that entry, and serves it at the `serve` entry that
 * follows once they all have (`redis-switch.ts`).
 */
const WRITE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('LEASE_LOST') end
redis.call('SET', KEYS[2], ARGV[2])
if ARGV[3] == 'announce' then
  local id = redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[6], '*', 'kind', 'full', 'version', ARGV[4], 'source', ARGV[5])
  redis.call('SET', KEYS[3], id)
  return id
end
if ARGV[3] ~= '' then
  redis.call('SET', KEYS[3], ARGV[3])
  -- What comes before the stored version is needed by nobody: a follower further behind loads it.
  redis.call('XTRIM', KEYS[5], 'MINID', '~', ARGV[3])
end
return 'ok'`;

/** Stream entries kept (about): a follower further behind reloads the stored version instead. */
export const CHANGE_STREAM_MAXLEN = 10_000;

/**
 * The pointer of a version list as a native Redis key, written under the lease (`redis-lease.ts`). A
 * pointer stored by keyv before (an upgrade, or a single instance that became a group) is still read until
 * the first fenced write.
 */
export function createFencedPointer(
  client: RedisClient,
  lease: LeaderLease,
  prefix: string,
  fallback: PointerBackend,
): PointerBackend {
  const pointerKey = GROUP_KEYS.pointer(prefix);
  const positionKey = GROUP_KEYS.pointerPosition(prefix);
  return {
    async read() {
      const [raw, position] = await client.mGet([pointerKey, positionKey]);
      if (raw === null || raw === undefined) return fallback.read();
      const pointer = JSON.parse(String(raw)) as VersionPointer;
      return position === null || position === undefined ? { pointer } : { pointer, position: String(position) };
    },
    async write(pointer, how) {
      const held = lease.held();
      if (held === undefined) throw new LeaseLostError(`this instance does not hold the lease; ${prefix} pointer not moved`);
      try {
        await client.eval(WRITE, {
          keys: [GROUP_KEYS.lease, pointerKey, positionKey, GROUP_KEYS.head, GROUP_KEYS.changes],
          arguments: [
            held,
            JSON.stringify(pointer),
            how.announce === true ? 'announce' : (how.position ?? ''),
            pointer.version,
            pointer.source?.id ?? '',
            String(CHANGE_STREAM_MAXLEN),
          ],
        });
      } catch (error) {
        if (error instanceof Error && error.message.includes('LEASE_LOST')) {
          throw new LeaseLostError(`the lease lapsed; ${prefix} pointer not moved to ${pointer.version}`);
        }
        throw error;
      }
    },
  };
}
