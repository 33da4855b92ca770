import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningApp, startApp } from '../../../src/app/start-app.js';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.js';
import { createTestConfig } from '../../helpers/test-config.js';
import { waitFor } from '../../helpers/wait-for.js';
import { USER_AGENTS as UA } from '../../unit/core/fetches/user-agents.js';

/**
 * The fetch log of a group on one real redis-server (docs/console.md#who-fetches-the-feeds): every instance
 * writes to the same log, so a fetch served by one instance shows on the console of the other, and the
 * summaries of both are merged.
 */

const binary = inject('redisServerBinary');
const logger = pino({ level: 'silent' });

interface Answer {
  readonly summary: { feed: string; view: string; consumer: string; count: number }[];
  readonly recent: { feed: string; consumer: string; status: number; userAgent: string }[];
}

async function fetches(app: RunningApp, query = ''): Promise<Answer> {
  return (await (await fetch(`${app.url}/api/fetches${query}`)).json()) as Answer;
}

/** A streamed body's response finishes after the client has it: waits until `app` has recorded `count` fetches of `feed`. */
async function recorded(app: RunningApp, feed: string, count: number): Promise<void> {
  await waitFor(async () => (await app.fetches.recent({ feed, limit: 500 })).length >= count, {
    message: `${feed} recorded ${count} times`,
  });
}

let redis: RedisServer;
const apps: RunningApp[] = [];

describe.skipIf(binary === null)('fetch log on Redis', () => {
  beforeAll(async () => {
    redis = await startRedisServer(binary as string);
    const config = (instance: string) =>
      createTestConfig({
        STORE_URL: redis.url,
        INSTANCE_ID: instance,
        FETCH_LOG_SIZE: '50',
        SANDBOX_ARTICLES: '60',
        SANDBOX_SALES_PER_MINUTE: '0',
        CATALOG_SYNC_CRON: '0 0 1 1 *',
        STOCK_SYNC_CRON: '0 0 1 1 *',
      });
    apps.push(await startApp(config('fetch-a'), { logger }));
    await apps[0]?.initialSync;
    apps.push(await startApp(config('fetch-b'), { logger }));
  }, 60_000);

  afterAll(async () => {
    for (const app of apps.reverse()) await app.stop();
    await redis?.stop();
  }, 30_000);

  it('shows a fetch served by one instance on the other', async () => {
    const [a, b] = apps as [RunningApp, RunningApp];
    const served = await fetch(`${a.url}/feeds/all/heureka.xml`, { headers: { 'user-agent': UA.heureka } });
    expect(served.status).toBe(200);
    await served.arrayBuffer();
    await recorded(a, 'heureka.xml', 1);
    await a.fetches.flush();

    const seen = await fetches(b, '?feed=heureka.xml');
    expect(seen.recent.map((entry) => [entry.consumer, entry.status, entry.userAgent])).toEqual([['heureka', 200, UA.heureka]]);
    // The other instance's summaries arrive with its own next flush.
    await b.fetches.flush();
    expect((await fetches(b, '?feed=heureka.xml')).summary).toMatchObject([{ consumer: 'heureka', count: 1 }]);
  });

  it('merges both instances’ summaries of the same feed and consumer', async () => {
    const [a, b] = apps as [RunningApp, RunningApp];
    for (const app of [a, b, b]) {
      const response = await fetch(`${app.url}/feeds/all/zbozi.xml`, { headers: { 'user-agent': UA.zbozi } });
      await response.arrayBuffer();
    }
    await recorded(a, 'zbozi.xml', 1);
    await recorded(b, 'zbozi.xml', 2);
    await a.fetches.flush();
    await b.fetches.flush();
    await a.fetches.flush();
    for (const app of [a, b]) {
      const { summary, recent } = await fetches(app, '?feed=zbozi.xml');
      expect(summary).toMatchObject([{ feed: 'zbozi.xml', view: 'all', consumer: 'zbozi', count: 3 }]);
      expect(recent).toHaveLength(3);
    }
  });
});
