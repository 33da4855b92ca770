import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { createTestConfig } from '../helpers/test-config.js';
import { waitFor } from '../helpers/wait-for.js';
import { USER_AGENTS as UA } from '../unit/core/fetches/user-agents.js';

/**
 * The fetch log with the real app against the sandbox POS (docs/console.md#who-fetches-the-feeds): feeds
 * fetched with real user agents are recorded with their consumer, status, coding and the body bytes
 * sent; the log is bounded by FETCH_LOG_SIZE and survives a restart on the same SQLite file.
 */

const logger = pino({ level: 'silent' });
const dir = mkdtempSync(join(tmpdir(), 'fetch-log-'));
const STORE_URL = `sqlite://${join(dir, 'catalog.sqlite')}`;
const SIZE = 30;

interface Entry {
  readonly at: string;
  readonly feed: string;
  readonly view: string;
  readonly consumer: string;
  readonly userAgent: string;
  readonly status: number;
  readonly encoding: string;
  readonly bytes: number;
}
interface Answer {
  readonly since: string;
  readonly summary: { feed: string; view: string; consumer: string; count: number; lastStatus: number; url: string }[];
  readonly recent: Entry[];
  readonly warnings: { kind: string; feed: string; message: { en: string; cs: string } }[];
}

function config() {
  return createTestConfig({
    STORE_URL,
    FETCH_LOG_SIZE: String(SIZE),
    SANDBOX_ARTICLES: '120',
    SANDBOX_SALES_PER_MINUTE: '0',
    CATALOG_SYNC_CRON: '0 0 1 1 *',
    STOCK_SYNC_CRON: '0 0 1 1 *',
  });
}

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await request(url, { headers });
  const body = Buffer.from(await response.body.arrayBuffer());
  const etag = response.headers['etag'];
  return { status: response.statusCode, body, etag: typeof etag === 'string' ? etag : undefined };
}

async function fetches(app: RunningApp, query = ''): Promise<Answer> {
  const response = await fetch(`${app.url}/api/fetches${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Answer;
}

let app: RunningApp;

beforeAll(async () => {
  app = await startApp(config(), { logger });
  await app.initialSync;
});
afterAll(async () => {
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('fetch log over HTTP', () => {
  const AGENTS = [
    ['Googlebot', UA.googlebot, 'google'],
    ['Google-InspectionTool', UA.googleInspectionTool, 'google'],
    ['Heureka', UA.heureka, 'heureka'],
    ['SeznamBot', UA.seznambot, 'zbozi'],
    ['facebookexternalhit', UA.facebookexternalhit, 'meta'],
    ['Shoptet', UA.shoptet, 'shoptet'],
    ['curl', UA.curl, 'other'],
  ] as const;

  it.each(AGENTS)('records %s as %s: a 200 in gzip with its bytes, then a 304', async (_name, userAgent, consumer) => {
    const path = `/feeds/all/google.xml`;
    const full = await get(`${app.url}${path}`, { 'user-agent': userAgent, 'accept-encoding': 'gzip' });
    expect(full.status).toBe(200);
    const again = await get(`${app.url}${path}`, {
      'user-agent': userAgent,
      'accept-encoding': 'gzip',
      'if-none-match': full.etag ?? '',
    });
    expect(again.status).toBe(304);

    const recent = await waitFor(async () => {
      const answer = await fetches(app, `?consumer=${consumer}&limit=2`);
      return answer.recent[0]?.status === 304 && answer.recent[0].userAgent === userAgent ? answer.recent : undefined;
    });
    expect(recent).toHaveLength(2);
    expect(recent[0]).toMatchObject({ feed: 'google.xml', view: 'all', userAgent, status: 304, encoding: 'gzip', bytes: 0 });
    expect(recent[1]).toMatchObject({ status: 200, encoding: 'gzip', bytes: full.body.length });
  });

  it('records the routes express answers too (local-inventory.tsv, changes.json), never a feed or view that does not exist', async () => {
    const tsv = await get(`${app.url}/feeds/local-inventory.tsv`, { 'user-agent': UA.googlebot, 'accept-encoding': 'br' });
    expect(tsv.status).toBe(200);
    const changes = await get(`${app.url}/feeds/all/changes.json`, { 'user-agent': UA.curl });
    expect(changes.status).toBe(200);
    // A scanner's made-up URLs: answered 404, and kept out of the log, whose summaries are bounded.
    for (const path of ['/feeds/all/nothing.xml', '/feeds/v1/google.xml', '/feeds/x9/junk9.xml']) {
      expect((await get(`${app.url}${path}`, { 'user-agent': UA.curl })).status, path).toBe(404);
    }

    // A streamed body (changes.json is inflated as it is sent) finishes when its last chunk is written: maybe after the 404.
    const recent = await waitFor(async () => {
      const answer = await fetches(app, '?limit=500&consumer=');
      return answer.recent.some((entry) => entry.feed === 'changes.json') ? answer.recent : undefined;
    });
    const byFeed = new Map(recent.map((entry) => [entry.feed, entry]));
    expect(recent.filter((entry) => ['nothing.xml', 'junk9.xml'].includes(entry.feed) || entry.view === 'v1')).toEqual([]);
    expect(byFeed.get('changes.json')).toMatchObject({ status: 200, encoding: 'identity', bytes: changes.body.length });
    expect(byFeed.get('local-inventory.tsv')).toMatchObject({
      view: 'all',
      consumer: 'google',
      status: 200,
      encoding: 'br',
      bytes: tsv.body.length,
    });
  });

  it('records a HEAD with no body bytes', async () => {
    const response = await request(`${app.url}/feeds/all/meta.csv`, {
      method: 'HEAD',
      headers: { 'user-agent': UA.facebookcatalog, 'accept-encoding': 'br' },
    });
    await response.body.dump();
    expect(response.statusCode).toBe(200);
    const recent = await waitFor(async () => {
      const answer = await fetches(app, '?feed=meta.csv&limit=1');
      return answer.recent.length > 0 ? answer.recent : undefined;
    });
    expect(recent[0]).toMatchObject({ consumer: 'meta', status: 200, encoding: 'br', bytes: 0 });
  });

  it('summarizes per feed and consumer, and notes channel feeds never fetched by their channel', async () => {
    const answer = await fetches(app, '?feed=google.xml');
    const google = answer.summary.find((summary) => summary.consumer === 'google' && summary.view === 'all');
    expect(google).toMatchObject({ url: '/feeds/all/google.xml', count: 4, lastStatus: 304 });
    expect(answer.summary.every((summary) => summary.feed === 'google.xml')).toBe(true);
    const never = answer.warnings.filter((warning) => warning.kind === 'never').map((warning) => warning.feed);
    expect(never).toContain('zbozi.xml');
    expect(never).not.toContain('google.xml');
    // Seznam and Shoptet fetched google.xml, not their own feeds; Meta fetched meta.csv (the HEAD above).
    expect(never).toContain('shoptet.xml');
    expect(never).not.toContain('meta.csv');
  });

  it('answers bad queries 400 with the error shape', async () => {
    for (const query of ['?limit=501', '?limit=0', '?limit=ten', '?consumer=robot', '?feed=../etc', '?view=a/b']) {
      const response = await fetch(`${app.url}/api/fetches${query}`);
      expect(response.status, query).toBe(400);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('BAD_QUERY');
    }
    expect((await fetch(`${app.url}/fetches?limit=9999`)).status).toBe(400);
  });

  it('shows the page in Czech and English, with the filter form and no script', async () => {
    const cs = await (await fetch(`${app.url}/fetches?lang=cs&consumer=heureka`)).text();
    expect(cs).toContain('<h1>Kdo stahuje feedy</h1>');
    expect(cs).toContain('<strong>Heureka</strong>: naposledy');
    expect(cs).toMatch(/2 požadavky/);
    expect(cs).toContain('<option value="heureka" selected>');
    expect(cs).not.toContain('<script');
    const en = await (await fetch(`${app.url}/fetches?lang=en`)).text();
    expect(en).toContain('<h1>Who fetches the feeds</h1>');
    expect(en).toMatch(/<strong>Google<\/strong>: last fetched [^<]*, 304, gzip, 0 B/);
    expect(en).toContain('<li>Zboží.cz (Seznam): <code>/feeds/all/zbozi.xml</code></li>');
  });

  it('keeps at most FETCH_LOG_SIZE entries; the summary keeps counting', async () => {
    for (let i = 0; i < SIZE + 5; i++) await get(`${app.url}/feeds/all/products.json`, { 'user-agent': UA.wget });
    const countOf = (answer: Answer) =>
      answer.summary.find((summary) => summary.feed === 'products.json' && summary.consumer === 'other')?.count;
    const answer = await waitFor(async () => {
      const current = await fetches(app, '?limit=500');
      return countOf(current) === SIZE + 5 ? current : undefined;
    });
    expect(answer.recent).toHaveLength(SIZE);
  });

  it('survives a restart on the same store', async () => {
    const before = await fetches(app, '?limit=500');
    await app.stop();
    app = await startApp(config(), { logger });
    const after = await fetches(app, '?limit=500');
    expect(after.since).toBe(before.since);
    expect(after.recent.map((entry) => entry.at)).toEqual(before.recent.map((entry) => entry.at));
    expect(after.summary).toEqual(before.summary);
  });
});

describe('fetch log with FEED_TOKEN', () => {
  const TOKEN = 'feed-token-0001';
  let guarded: RunningApp;

  beforeAll(async () => {
    guarded = await startApp(
      createTestConfig({
        FEED_TOKEN: TOKEN,
        SANDBOX_ARTICLES: '40',
        SANDBOX_SALES_PER_MINUTE: '0',
        CATALOG_SYNC_CRON: '0 0 1 1 *',
      }),
      { logger },
    );
    await guarded.initialSync;
  });
  afterAll(() => guarded?.stop());

  it('needs the token for the page and the API, and records only answered feed requests, not a stranger refused', async () => {
    expect((await fetch(`${guarded.url}/api/fetches`)).status).toBe(401);
    expect((await fetch(`${guarded.url}/fetches`)).status).toBe(401);
    // A stranger claiming to be Googlebot without the token: refused, and no entry in the channel's name.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const refused = await get(`${guarded.url}/feeds/all/google.xml`, { 'user-agent': UA.googlebot });
      expect(refused.status).toBe(401);
    }
    const answered = await get(`${guarded.url}/feeds/all/google.xml?token=${TOKEN}`, { 'user-agent': UA.googlebot });
    expect(answered.status).toBe(200);

    const response = await fetch(`${guarded.url}/api/fetches?token=${TOKEN}`);
    expect(response.status).toBe(200);
    const { recent } = (await response.json()) as Answer;
    expect(recent.filter((entry) => entry.status === 401)).toEqual([]);
    expect(recent[0]).toMatchObject({ feed: 'google.xml', consumer: 'google', status: 200 });
    const page = await (await fetch(`${guarded.url}/fetches?token=${TOKEN}&lang=en`)).text();
    expect(page).toContain(`<input type="hidden" name="token" value="${TOKEN}">`);
  });
});
