import { createSlicer } from '../../core/async/create-slicer.js';
import { settledWithin } from '../../core/async/settled-within.js';
import { type FetchLogStore, MAX_SUMMARIES } from '../../core/fetches/fetch-log-store.js';
import { type FetchEntry, type FetchSummary, KEPT_TIMES, summaryKey } from '../../core/fetches/fetch-summary.js';
import { createRedisClient } from '../store/create-keyv.js';
import { fieldsOf } from './redis-keys.js';

/** The fetch log's Redis keys, beside the group's (redis-keys.ts). */
export const FETCH_LOG_KEYS = {
  /** JSON entries, newest first, trimmed to the log's size. */
  recent: 'catalog-bridge:fetches:recent',
  /** `feed|view|consumer` → JSON summary. */
  summaries: 'catalog-bridge:fetches:summaries',
  /** When the log began (epoch ms), set once. */
  since: 'catalog-bridge:fetches:since',
} as const;

/**
 * One batch of one instance, in one step: its entries pushed onto the shared list (trimmed to the size),
 * its summaries merged into the stored ones (counts added, the later last fetch, the latest fetch times of
 * both), and every summary answered. A script, so that two instances flushing at once merge, not overwrite.
 * ARGV: size, max summaries, kept times, entry count n, n entries, then field/summary pairs.
 */
const APPEND = `
local size = tonumber(ARGV[1])
local maxSummaries = tonumber(ARGV[2])
local kept = tonumber(ARGV[3])
local n = tonumber(ARGV[4])
for i = 5, 4 + n do redis.call('LPUSH', KEYS[1], ARGV[i]) end
if n > 0 then redis.call('LTRIM', KEYS[1], 0, size - 1) end
for i = 5 + n, #ARGV, 2 do
  local raw = redis.call('HGET', KEYS[2], ARGV[i])
  if raw then
    local current = cjson.decode(raw)
    local incoming = cjson.decode(ARGV[i + 1])
    local times = {}
    for _, t in ipairs(current.times) do table.insert(times, t) end
    for _, t in ipairs(incoming.times) do table.insert(times, t) end
    table.sort(times)
    local trimmed = {}
    for j = math.max(1, #times - kept + 1), #times do table.insert(trimmed, times[j]) end
    local merged = incoming
    if current.lastAt > incoming.lastAt then merged = current end
    merged.count = current.count + incoming.count
    merged.times = trimmed
    redis.call('HSET', KEYS[2], ARGV[i], cjson.encode(merged))
  elseif redis.call('HLEN', KEYS[2]) < maxSummaries then
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  end
end
return redis.call('HGETALL', KEYS[2])`;

function summariesOf(raw: unknown): FetchSummary[] {
  const summaries: FetchSummary[] = [];
  for (const value of Object.values(fieldsOf(raw))) {
    try {
      summaries.push(JSON.parse(value) as FetchSummary);
    } catch {
      // A value not written by this code: left out.
    }
  }
  return summaries;
}

/**
 * The fetch log of a group on Redis (docs/scale-out.md): every instance pushes its batches onto one list and
 * merges its summaries into one hash, so the console of any instance shows every instance's fetches.
 * A connection of its own (`createRedisClient`: deadlines, reconnects).
 */
export function createRedisFetchLog(url: string, options: { readonly size: number; readonly now: () => Date }): FetchLogStore {
  const client = createRedisClient(url);
  client.on('error', () => undefined);
  // Not awaited: commands queue until it is connected, each within its deadline.
  client.connect().catch(() => undefined);

  return {
    shared: true,
    async load() {
      await client.sendCommand(['SET', FETCH_LOG_KEYS.since, String(options.now().getTime()), 'NX']);
      const since = Number(await client.sendCommand(['GET', FETCH_LOG_KEYS.since]));
      const summaries = summariesOf(await client.sendCommand(['HGETALL', FETCH_LOG_KEYS.summaries]));
      return { entries: [], summaries, since: Number.isFinite(since) ? since : options.now().getTime() };
    },
    async append(entries, batch) {
      const args = [String(options.size), String(MAX_SUMMARIES), String(KEPT_TIMES), String(entries.length)];
      for (const entry of entries) args.push(JSON.stringify(entry));
      for (const summary of batch) args.push(summaryKey(summary), JSON.stringify(summary));
      const raw = await client.eval(APPEND, { keys: [FETCH_LOG_KEYS.recent, FETCH_LOG_KEYS.summaries], arguments: args });
      return summariesOf(raw);
    },
    async recent(limit) {
      const raw = (await client.sendCommand(['LRANGE', FETCH_LOG_KEYS.recent, '0', String(limit - 1)])) as unknown;
      if (!Array.isArray(raw)) return [];
      // Up to the log's size (5,000 by default) of JSON: parsed in slices.
      const slicer = createSlicer();
      const entries: FetchEntry[] = [];
      for (const value of raw) {
        try {
          entries.push(JSON.parse(String(value)) as FetchEntry);
        } catch {
          // Not one of ours.
        }
        await slicer.next();
      }
      return entries;
    },
    async close() {
      // A graceful close waits for replies; with Redis away, they are dropped after a moment.
      await settledWithin(
        client.close().catch(() => undefined),
        1_000,
      );
      if (client.isOpen) client.destroy();
    },
  };
}
