import { PUSH_MASK, PUSH_MASK_ADDED_AND_REMOVED, PUSH_MASK_ALL_FIELDS } from '../../core/push/outbox.js';

/**
 * Lua scripts of the Redis push outbox (docs/decisions/0013-channel-push.md, section 3). A pending row is a
 * hash field `mask|gen|sinceMs|attempts|lastError` (the error last: it may hold `|`); two due sorted sets
 * score targets by due time (a claim's lease re-scores it), each target in exactly one: `due` for live
 * changes, `low` for the reconciliation's pure re-sends (mask exactly FULL, `isLowPriority`), claimed only
 * after the due live changes; the since sorted set scores them by `sinceMs` so the oldest pending age is one
 * `ZRANGE`, not a read of every row.
 */
const ROW_FUNCTIONS = `
local function parse(value)
  local mask, gen, since, attempts, err = string.match(value, '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$')
  return tonumber(mask), tonumber(gen), tonumber(since), tonumber(attempts), err
end
local function format(mask, gen, since, attempts, err)
  return string.format('%d|%d|%d|%d|', mask, gen, since, attempts) .. err
end
local function merge(pending, incoming)
  local merged = bit.bor(pending, incoming)
  if bit.band(merged, ${PUSH_MASK_ADDED_AND_REMOVED}) ~= ${PUSH_MASK_ADDED_AND_REMOVED} then return merged end
  return bit.bor(bit.band(merged, bit.bnot(${PUSH_MASK_ADDED_AND_REMOVED})), ${PUSH_MASK_ALL_FIELDS | PUSH_MASK.FULL})
end
-- Puts the target in the due set its mask says (high: live changes; low: a pure re-send) at \`score\`.
local function schedule(due, low, target, mask, score)
  if mask == ${PUSH_MASK.FULL} then
    redis.call('ZREM', due, target)
    redis.call('ZADD', low, score, target)
  else
    redis.call('ZREM', low, target)
    redis.call('ZADD', due, score, target)
  end
end`;

/**
 * KEYS: lease, cursor, then pending, due, low, since for each channel in `PUSH_CHANNELS` order.
 * ARGV: fence (`''`: unfenced), has expected (`1`/`0`), expected, new cursor, updates as JSON
 * `[[channelIndex, target, mask, atMs], …]`. Returns `{'ok'}`, `{'fenced'}` or `{'stale', has, cursor}`.
 */
export const ENQUEUE = `${ROW_FUNCTIONS}
if ARGV[1] ~= '' and redis.call('GET', KEYS[1]) ~= ARGV[1] then return {'fenced'} end
local cursor = redis.call('GET', KEYS[2])
local expected = ARGV[2] == '1' and ARGV[3] or false
if cursor ~= expected then
  if cursor then return {'stale', '1', cursor} end
  return {'stale', '0', ''}
end
for _, update in ipairs(cjson.decode(ARGV[5])) do
  local base = 3 + update[1] * 4
  local pending, due, low, since = KEYS[base], KEYS[base + 1], KEYS[base + 2], KEYS[base + 3]
  local target, mask, at = update[2], update[3], update[4]
  local old = redis.call('HGET', pending, target)
  if old then
    local m, g, s, a, e = parse(old)
    local merged = merge(m, mask)
    redis.call('HSET', pending, target, format(merged, g + 1, s, a, e))
    -- The earlier due time stays (a row leased for a send is due again at once), in the set of the merged mask.
    local score = tonumber(redis.call('ZSCORE', due, target)) or tonumber(redis.call('ZSCORE', low, target))
    if score == nil or at < score then score = at end
    schedule(due, low, target, merged, score)
  else
    redis.call('HSET', pending, target, format(mask, 1, at, 0, ''))
    schedule(due, low, target, mask, at)
    redis.call('ZADD', since, at, target)
  end
end
redis.call('SET', KEYS[2], ARGV[4])
return {'ok'}`;

/**
 * KEYS: pending, due, low, lease. ARGV: now, limit, leaseMs, fence (`''`: unfenced; else nothing is claimed
 * unless the lease holds it). Returns `[target, row, target, row, …]`: the due live
 * changes earliest due first, then due re-sends (the low set) for the rest of the limit; each leased (re-scored)
 * in the set it is in.
 */
export const CLAIM = `
if ARGV[4] ~= '' and redis.call('GET', KEYS[4]) ~= ARGV[4] then return {} end
local limit = tonumber(ARGV[2])
local leased = tonumber(ARGV[1]) + tonumber(ARGV[3])
local claimed = {}
local function take(set)
  local count = limit - #claimed / 2
  if count <= 0 then return end
  for _, target in ipairs(redis.call('ZRANGEBYSCORE', set, '-inf', ARGV[1], 'LIMIT', 0, count)) do
    local row = redis.call('HGET', KEYS[1], target)
    if row then
      redis.call('ZADD', set, 'XX', leased, target)
      claimed[#claimed + 1] = target
      claimed[#claimed + 1] = row
    else
      redis.call('ZREM', set, target)
    end
  end
end
take(KEYS[2])
take(KEYS[3])
return claimed`;

/** KEYS: pending, due, low, since. ARGV: target, gen. Deletes the row only if it is still `gen`; returns 1 if it did. */
export const ACK = `${ROW_FUNCTIONS}
local row = redis.call('HGET', KEYS[1], ARGV[1])
if not row then return 0 end
local _, gen = parse(row)
if gen ~= tonumber(ARGV[2]) then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
return 1`;

/**
 * KEYS: pending, due, low. ARGV: target, gen, dueMs, error. Counts the attempt; re-scores only a row still at
 * `gen`, in the set it is in (`XX`: the other set does not hold it).
 */
export const RETRY = `${ROW_FUNCTIONS}
local row = redis.call('HGET', KEYS[1], ARGV[1])
if not row then return 0 end
local m, g, s, a = parse(row)
redis.call('HSET', KEYS[1], ARGV[1], format(m, g, s, a + 1, ARGV[4]))
if g == tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[2], 'XX', ARGV[3], ARGV[1])
  redis.call('ZADD', KEYS[3], 'XX', ARGV[3], ARGV[1])
end
return 1`;

/**
 * KEYS: pending, due, low, since, state. ARGV: target, gen, error. Counts the rejection (always), drops a row still
 * at `gen`, else keeps the error on it. Returns 1 if it dropped the row.
 */
export const REJECT = `${ROW_FUNCTIONS}
redis.call('HINCRBY', KEYS[5], 'rejected', 1)
local row = redis.call('HGET', KEYS[1], ARGV[1])
if not row then return 0 end
local m, g, s, a = parse(row)
if g == tonumber(ARGV[2]) then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  redis.call('ZREM', KEYS[4], ARGV[1])
  return 1
end
redis.call('HSET', KEYS[1], ARGV[1], format(m, g, s, a, ARGV[3]))
return 0`;
