import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../../src/app/start-app.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start-sandbox.js';
import { createTestConfig } from '../../helpers/test-config.js';

/**
 * What a stranger learns from the operator's endpoints (docs/security.md): `/readyz` says ready or not
 * and nothing else without a token; `/metrics` needs one; no page shows a hash of `POS_API_KEY`. Behind a
 * proxy named by `TRUST_PROXY` the admin login throttle counts the client, not the proxy; without it a
 * forged `X-Forwarded-For` changes nothing.
 */

const logger = pino({ level: 'silent' });
const POS_KEY = 'pos-key-of-the-shop';
const FEED_TOKEN = 'feed-token-1234';
const METRICS_TOKEN = 'metrics-token-for-prometheus';
const ADMIN_TOKEN = 'admin-token-for-the-office';
const NEVER = { CATALOG_SYNC_CRON: '0 0 1 1 *', STOCK_SYNC_CRON: '0 0 1 1 *' };

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  const text = await response.text();
  return { status: response.status, text, headers: response.headers };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('the operator endpoints of a bridge with tokens, read by a stranger', () => {
  const dir = mkdtempSync(join(tmpdir(), 'public-surface-'));
  let pos: RunningSandbox;
  let app: RunningApp;

  beforeAll(async () => {
    pos = await startSandbox({ units: 2, articles: 40, seed: 5, salesPerMinute: 0, apiKey: POS_KEY });
    app = await startApp(
      createTestConfig({
        STORE_URL: `sqlite://${join(dir, 'catalog.sqlite')}`,
        POS_BASE_URL: pos.url,
        POS_API_KEY: POS_KEY,
        FEED_TOKEN,
        METRICS_TOKEN,
        PUBLIC_BASE_URL: 'https://feeds.shop.example',
        ADMIN_TOKEN,
        ...NEVER,
      }),
      { logger },
    );
    await app.initialSync;
  });
  afterAll(async () => {
    await app.stop();
    await pos.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers /readyz without a token with ready or not, and nothing of the POS, its key or the errors', async () => {
    const answer = await get(`${app.url}/readyz`);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ ready: true, details: expect.stringContaining('docs/security.md') });
    expect(answer.text).not.toContain(new URL(pos.url).port);
  });

  it('answers a token that opens nothing 401, so that /readyz is no token oracle without a limit', async () => {
    for (const [url, headers] of [
      [`${app.url}/readyz`, bearer('a-wrong-token-of-some-length')],
      [`${app.url}/readyz`, bearer(POS_KEY)],
      // The admin token opens the admin area only: its guesses are counted there.
      [`${app.url}/readyz`, bearer(ADMIN_TOKEN)],
      [`${app.url}/readyz?token=${METRICS_TOKEN}`, {}],
    ] as const) {
      const answer = await get(url, headers);
      expect(answer.status, url).toBe(401);
      expect(answer.text).not.toContain('"ready"');
    }
  });

  it('gives the whole report to FEED_TOKEN (bearer or query) and METRICS_TOKEN, without a hash of the key', async () => {
    const answers = [
      await get(`${app.url}/readyz`, bearer(FEED_TOKEN)),
      await get(`${app.url}/readyz?token=${FEED_TOKEN}`),
      await get(`${app.url}/readyz`, bearer(METRICS_TOKEN)),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const report = JSON.parse(answer.text) as { pos: string; source: string; jobs: object };
      expect(report.pos).toBe(pos.url.replace(/\/+$/, ''));
      expect(report.source).toBe(`the POS at ${pos.url.replace(/\/+$/, '')}`);
      expect(report.jobs).toHaveProperty('sync-catalog');
      expect(answer.text).not.toMatch(/API key #|key=[0-9a-f]/);
    }
    const status = await get(`${app.url}/`, bearer(FEED_TOKEN));
    expect(status.status).toBe(200);
    // PUBLIC_BASE_URL is https: browsers are told to stay on https.
    expect(status.headers.get('strict-transport-security')).toBe('max-age=31536000');
    expect(status.text).not.toContain('API key #');
  });

  it('answers /metrics 401 without a token, and to METRICS_TOKEN in the query (it would end up in access logs)', async () => {
    for (const [url, headers] of [
      [`${app.url}/metrics`, {}],
      [`${app.url}/metrics`, bearer('a-wrong-token-of-some-length')],
      [`${app.url}/metrics?token=${METRICS_TOKEN}`, {}],
      [`${app.url}/metrics`, bearer(ADMIN_TOKEN)],
    ] as const) {
      const answer = await get(url, headers);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(answer.text).not.toContain('catalog_bridge_');
    }
    for (const [url, headers] of [
      [`${app.url}/metrics`, bearer(METRICS_TOKEN)],
      [`${app.url}/metrics`, bearer(FEED_TOKEN)],
      [`${app.url}/metrics?token=${FEED_TOKEN}`, {}],
    ] as const) {
      const answer = await get(url, headers);
      expect(answer.status).toBe(200);
      expect(answer.text).toContain('catalog_bridge_');
    }
  });

  it('opens nothing but /metrics and /readyz with METRICS_TOKEN', async () => {
    for (const path of ['/feeds/all/products.json', '/feeds', '/', '/admin/sync/status']) {
      expect((await get(`${app.url}${path}`, bearer(METRICS_TOKEN))).status, path).toBe(401);
    }
  });
});

describe('the operator endpoints of a bridge without tokens', () => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp(createTestConfig({ STORE_URL: 'memory://', SANDBOX_ARTICLES: '30', ...NEVER }), { logger });
    await app.initialSync;
  });
  afterAll(async () => app.stop());

  it('puts a Host header into the listed feed URLs only when it is a plain host: never markup or another URL', async () => {
    const feedsWithHost = (host: string) =>
      new Promise<{ feeds: { url: string }[] }>((resolve, reject) => {
        const { port } = new URL(app.url);
        const req = httpRequest({ host: '127.0.0.1', port, path: '/feeds', headers: { host } }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => resolve(JSON.parse(text) as { feeds: { url: string }[] }));
        });
        req.on('error', reject).end();
      });
    for (const host of ['evil.example/"><b>x</b>', 'a@evil.example', 'evil.example:80/x?', ' ']) {
      const listed = await feedsWithHost(host);
      expect(listed.feeds[0]?.url, host).toMatch(/^http:\/\/localhost\/feeds\//);
    }
    expect((await feedsWithHost('feeds.shop.example:8080')).feeds[0]?.url).toMatch(
      /^http:\/\/feeds\.shop\.example:8080\/feeds\//,
    );
  });

  it('shows the whole /readyz and /metrics to anyone, as the status page is open to anyone', async () => {
    expect((await get(`${app.url}/`)).headers.get('strict-transport-security')).toBeNull();
    const ready = await get(`${app.url}/readyz`);
    expect(JSON.parse(ready.text)).toMatchObject({ ready: true, jobs: expect.any(Object) });
    expect((await get(`${app.url}/metrics`)).status).toBe(200);
  });
});

describe('the admin login throttle behind a proxy', () => {
  const wrongTries = async (app: RunningApp, forwardedFor: string) => {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const guess = await get(`${app.url}/admin/sync/status`, {
        ...bearer(`guess-number-${attempt}-of-ten`),
        'x-forwarded-for': forwardedFor,
      });
      expect(guess.status).toBe(401);
    }
  };
  const asOffice = (app: RunningApp, forwardedFor: string) =>
    get(`${app.url}/admin/sync/status`, { ...bearer(ADMIN_TOKEN), 'x-forwarded-for': forwardedFor });

  it('with TRUST_PROXY=loopback counts the forwarded client: a guesser locks out itself, not the office', async () => {
    const app = await startApp(
      createTestConfig({ STORE_URL: 'memory://', SANDBOX_ARTICLES: '20', ADMIN_TOKEN, TRUST_PROXY: 'loopback', ...NEVER }),
      { logger },
    );
    try {
      await wrongTries(app, '203.0.113.9');
      expect((await asOffice(app, '203.0.113.9')).status).toBe(429);
      expect((await asOffice(app, '198.51.100.20')).status).toBe(200);
      const overHttps = await get(`${app.url}/healthz`, { 'x-forwarded-proto': 'https' });
      expect(overHttps.headers.get('strict-transport-security')).toBe('max-age=31536000');
      expect((await get(`${app.url}/healthz`)).headers.get('strict-transport-security')).toBeNull();
    } finally {
      await app.stop();
    }
  });

  it('without TRUST_PROXY ignores X-Forwarded-For: a guesser cannot dodge the throttle by forging it', async () => {
    const app = await startApp(createTestConfig({ STORE_URL: 'memory://', SANDBOX_ARTICLES: '20', ADMIN_TOKEN, ...NEVER }), {
      logger,
    });
    try {
      await wrongTries(app, '203.0.113.9');
      expect((await asOffice(app, '198.51.100.20')).status).toBe(429);
      const forged = await get(`${app.url}/healthz`, { 'x-forwarded-proto': 'https' });
      expect(forged.headers.get('strict-transport-security')).toBeNull();
    } finally {
      await app.stop();
    }
  });
});

describe('guessing a feed token or a webhook key', () => {
  let app: RunningApp;
  const from = (address: string, headers: Record<string, string> = {}) => ({ ...headers, 'x-forwarded-for': address });
  const hook = (address: string | undefined, key: string) =>
    fetch(`${app.url}/webhooks/pos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, ...(address === undefined ? {} : from(address)) },
      body: '{}',
    });

  beforeAll(async () => {
    // Sandbox mode: the in-process sandbox's well-known webhook key is accepted from this machine only.
    app = await startApp(
      createTestConfig({ STORE_URL: 'memory://', SANDBOX_ARTICLES: '20', FEED_TOKEN, TRUST_PROXY: 'loopback', ...NEVER }),
      { logger },
    );
    await app.initialSync;
  });
  afterAll(async () => app.stop());

  it('refuses an address everything after 30 wrong tokens, the right token too; other addresses go on', async () => {
    const feed = `${app.url}/feeds/all/products.json`;
    for (let attempt = 0; attempt < 30; attempt += 1) {
      expect((await get(`${feed}?token=guess-${attempt}`, from('203.0.113.7'))).status).toBe(401);
    }
    const refused = [
      await get(`${feed}?token=${FEED_TOKEN}`, from('203.0.113.7')),
      await get(`${app.url}/`, from('203.0.113.7', bearer(FEED_TOKEN))),
      await get(`${app.url}/readyz?token=${FEED_TOKEN}`, from('203.0.113.7')),
    ];
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'TOO_MANY_ATTEMPTS' } });
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect((await hook('203.0.113.7', 'sandbox-key')).status).toBe(429);
    // What a load balancer asks still answers: the blocked address may be the balancer's.
    expect((await get(`${app.url}/healthz`, from('203.0.113.7'))).status).toBe(200);
    expect((await get(`${app.url}/readyz`, from('203.0.113.7'))).status).toBe(200);
    expect((await get(`${feed}?token=${FEED_TOKEN}`, from('198.51.100.30'))).status).toBe(200);
  });

  it('counts 401s sent at once: thirty guesses in parallel block the next, and an IPv6 client by its /64', async () => {
    const feed = `${app.url}/feeds/all/products.json`;
    const guesses = await Promise.all(
      Array.from({ length: 40 }, (_, attempt) => get(`${feed}?token=parallel-${attempt}`, from('2001:db8:1:2::7'))),
    );
    expect(guesses.filter((answer) => answer.status === 401).length).toBeLessThanOrEqual(30);
    // Another address of the same /64 is the same client.
    expect((await get(`${feed}?token=${FEED_TOKEN}`, from('2001:db8:1:2::ffff'))).status).toBe(429);
    expect((await get(`${feed}?token=${FEED_TOKEN}`, from('2001:db8:1:3::1'))).status).toBe(200);
  });

  it("takes the sandbox's well-known webhook key from this machine only", async () => {
    expect((await hook('198.51.100.40', 'sandbox-key')).status).toBe(401);
    expect((await hook(undefined, 'sandbox-key')).status).not.toBe(401);
  });
});
