import { Keyv } from 'keyv';
import { describe, expect, it } from 'vitest';
import { createKeyvFetchLog } from '../../../../src/adapters/store/keyv-fetch-log.js';
import type { FetchLogStore } from '../../../../src/core/fetches/fetch-log-store.js';
import { createFetchLog, type RecordedFetch } from '../../../../src/services/fetches/fetch-log.js';

const HOUR = 3_600_000;
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

function fetchOf(userAgent: string | undefined, overrides: Partial<RecordedFetch> = {}): RecordedFetch {
  return { feed: 'google.xml', view: 'all', userAgent, status: 200, encoding: 'gzip', bytes: 1234, ...overrides };
}

/** A fetch log over a keyv in memory, with a clock the test moves. */
function setUp(keyv: Keyv, size: number, clock: { now: number }) {
  const now = () => new Date(clock.now);
  return createFetchLog({
    store: createKeyvFetchLog(keyv, { size, now }),
    size,
    now,
    flushMs: 60_000,
    channelFeeds: () => ['google.xml', 'heureka.xml'],
  });
}

describe('fetch log (keyv store)', () => {
  it('classifies and summarizes what it records, newest first', async () => {
    const clock = { now: Date.parse('2026-11-20T10:00:00Z') };
    const log = setUp(new Keyv(), 100, clock);
    await log.start();
    log.record(fetchOf(GOOGLEBOT));
    clock.now += 1000;
    log.record(fetchOf(CHROME, { status: 304, bytes: 0 }));

    const recent = await log.recent({ limit: 10 });
    expect(recent.map((entry) => [entry.consumer, entry.status])).toEqual([
      ['browser', 304],
      ['google', 200],
    ]);
    expect(await log.recent({ limit: 10, consumer: 'google' })).toHaveLength(1);
    expect(log.summaries().map((summary) => [summary.consumer, summary.count, summary.url])).toEqual([
      ['google', 1, '/feeds/all/google.xml'],
      ['browser', 1, '/feeds/all/google.xml'],
    ]);
    await log.close();
  });

  it('keeps at most FETCH_LOG_SIZE entries, while the summaries keep counting', async () => {
    const clock = { now: Date.parse('2026-11-20T10:00:00Z') };
    const keyv = new Keyv();
    const log = setUp(keyv, 10, clock);
    await log.start();
    for (let i = 0; i < 35; i++) {
      clock.now += 1000;
      log.record(fetchOf(CHROME, { bytes: i }));
      if (i % 7 === 0) await log.flush();
    }
    await log.flush();
    const recent = await log.recent({ limit: 500 });
    expect(recent).toHaveLength(10);
    expect(recent[0]?.bytes).toBe(34);
    expect(log.summaries()[0]?.count).toBe(35);

    const reopened = setUp(keyv, 10, clock);
    await reopened.start();
    const stored = await reopened.recent({ limit: 500 });
    expect(stored.map((entry) => entry.bytes)).toEqual([34, 33, 32, 31, 30, 29, 28, 27, 26, 25]);
    expect(reopened.summaries()[0]?.count).toBe(35);
  });

  it('survives a restart on the same store, since and all', async () => {
    const clock = { now: Date.parse('2026-11-20T10:00:00Z') };
    const keyv = new Keyv();
    const first = setUp(keyv, 100, clock);
    await first.start();
    const since = first.since();
    first.record(fetchOf(GOOGLEBOT));
    await first.close().catch(() => undefined);

    clock.now += HOUR;
    const second = setUp(keyv, 100, clock);
    await second.start();
    expect(second.since()).toEqual(since);
    expect((await second.recent({ limit: 10 })).map((entry) => entry.consumer)).toEqual(['google']);
  });

  it('warns when Google stops fetching, and notes channel feeds never fetched', async () => {
    const clock = { now: Date.parse('2026-11-20T00:00:00Z') };
    const log = setUp(new Keyv(), 100, clock);
    await log.start();
    expect(log.neverFetched().map((note) => note.feed)).toEqual(['google.xml', 'heureka.xml']);
    for (let i = 0; i < 5; i++) {
      log.record(fetchOf(GOOGLEBOT, { status: 304, bytes: 0 }));
      clock.now += HOUR;
    }
    expect(log.neverFetched().map((note) => note.feed)).toEqual(['heureka.xml']);
    expect(log.staleFetchers()).toEqual([]);
    clock.now += 4 * HOUR;
    const [warning] = log.staleFetchers();
    expect(warning?.message.en).toBe('Google has not fetched /feeds/all/google.xml for 5 h; it usually fetches it every 1 h.');
    expect(log.summaries()[0]).toMatchObject({ usualIntervalSeconds: 3600, stale: true, lastStatus: 304 });
  });

  it('keeps a batch the store refused and stores it with the next flush', async () => {
    const clock = { now: Date.parse('2026-11-20T10:00:00Z') };
    const inner = createKeyvFetchLog(new Keyv(), { size: 100, now: () => new Date(clock.now) });
    let refuse = true;
    const stored: number[] = [];
    const store: FetchLogStore = {
      ...inner,
      append: async (entries, summaries) => {
        if (refuse) throw new Error('store away');
        stored.push(entries.length);
        return inner.append(entries, summaries);
      },
    };
    const errors: unknown[] = [];
    const log = createFetchLog({ store, size: 100, channelFeeds: () => [], onError: (error) => errors.push(error) });
    await log.start();
    log.record(fetchOf(GOOGLEBOT));
    await log.flush();
    expect(errors).toHaveLength(1);
    refuse = false;
    log.record(fetchOf(CHROME));
    await log.flush();
    expect(stored).toEqual([2]);
    await log.flush();
    expect(stored).toEqual([2]);
  });
});
