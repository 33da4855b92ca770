import type { ChangeJournal, JournalEntry } from '../../services/catalog/change-journal.js';
import { GROUP_KEYS, type RedisClient, streamReplyEntries } from './redis-keys.js';
import { CHANGE_STREAM_MAXLEN } from './redis-pointer.js';

/**
 * Appends a stock change only onto the version the stream ends on (compare-and-set of the head): two
 * instances that made a change from the same version cannot both append it; the second makes it again
 * from the first's result. Without a head (a Redis restarted empty) nothing is appended until the leader
 * announces the catalog again: a lagging instance's change must not become the group's version.
 */
const APPEND = `
local head = redis.call('GET', KEYS[1])
if not head then return {0, ''} end
if head ~= ARGV[1] then return {0, head} end
redis.call('SET', KEYS[1], ARGV[2])
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'kind', 'stock', 'base', ARGV[1], 'version', ARGV[2], 'source', ARGV[3], 'body', ARGV[4])
return {1, id}`;

/**
 * `client` runs the commands; `reader` is a connection of its own for the blocking reads, so that a
 * waiting read never delays a command.
 */
export function createChangeJournal(client: RedisClient, reader: RedisClient): ChangeJournal {
  return {
    async appendStock(change) {
      const reply = (await client.eval(APPEND, {
        keys: [GROUP_KEYS.head, GROUP_KEYS.changes],
        arguments: [change.base, change.version, change.source, change.body, String(CHANGE_STREAM_MAXLEN)],
      })) as [number, string];
      return Number(reply[0]) === 1 ? { ok: true, id: String(reply[1]) } : { ok: false, head: String(reply[1]) };
    },
    async read(after, blockMs) {
      const raw = await reader.sendCommand([
        'XREAD',
        'COUNT',
        '200',
        'BLOCK',
        String(blockMs),
        'STREAMS',
        GROUP_KEYS.changes,
        after,
      ]);
      const entries: JournalEntry[] = [];
      for (const { id, fields } of streamReplyEntries(raw)) {
        const version = fields['version'] ?? '';
        const source = fields['source'] ?? '';
        if (fields['kind'] === 'full' || fields['kind'] === 'serve') entries.push({ id, kind: fields['kind'], version, source });
        else if (fields['kind'] === 'stock') {
          entries.push({ id, kind: 'stock', base: fields['base'] ?? '', version, source, body: fields['body'] ?? '' });
        }
      }
      return entries;
    },
    async head() {
      const head = await client.get(GROUP_KEYS.head);
      return head === null ? undefined : String(head);
    },
    async lastId() {
      const raw = (await client.sendCommand(['XREVRANGE', GROUP_KEYS.changes, '+', '-', 'COUNT', '1'])) as unknown[];
      const first = raw?.[0];
      return Array.isArray(first) ? String(first[0]) : '0-0';
    },
    async countAfter(after, max) {
      const raw = (await client.sendCommand(['XRANGE', GROUP_KEYS.changes, `(${after}`, '+', 'COUNT', String(max)])) as unknown[];
      return Array.isArray(raw) ? raw.length : 0;
    },
    async close() {
      await reader.close().catch(() => undefined);
    },
  };
}
