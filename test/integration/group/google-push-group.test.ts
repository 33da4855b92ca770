import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@keyv/redis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningApp, startApp } from '../../../src/app/start-app.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start-sandbox.js';
import { type GoogleServer, startGoogleServer } from '../../fakes/channels/google-server.js';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.js';
import { createTestConfig } from '../../helpers/test-config.js';

/**
 * Google in a group of two instances on one real redis-server (docs/channel-push.md, Google, "In a group"):
 * only the leader reads from Google (token, data source, quotas), so a follower spends none of the account's
 * quota; the follower still shows the leader's quota; a follower that takes the lead reads the quotas before
 * its first send. Each instance has its own fake Merchant API, so the fakes tell which instance called.
 */

const binary = inject('redisServerBinary');
const KEY = 'sandbox-key';
const YEARLY = '0 0 1 1 *';
const ACCOUNT = '123';
const DATA_SOURCE = '456';
const CLIENT_EMAIL = 'bridge@project.iam.gserviceaccount.com';
const ADMIN_TOKEN = 'admin-token-google-group-0123456789abcdef';
const logger = pino({ level: 'silent' });
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const dir = mkdtempSync(join(tmpdir(), 'google-group-'));

let redis: RedisServer;
let pos: RunningSandbox;

interface Instance {
  readonly app: RunningApp;
  readonly google: GoogleServer;
}
const running: Instance[] = [];
const fakes: GoogleServer[] = [];

async function startInstance(id: string, extra: Record<string, string> = {}): Promise<Instance> {
  const google = await startGoogleServer({
    account: ACCOUNT,
    dataSourceId: DATA_SOURCE,
    clientEmail: CLIENT_EMAIL,
    publicKey: keys.publicKey,
  });
  fakes.push(google);
  const keyFile = join(dir, `${id}.json`);
  const privateKey = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  writeFileSync(keyFile, JSON.stringify({ type: 'service_account', client_email: CLIENT_EMAIL, private_key: privateKey }));
  const config = createTestConfig({
    POS_BASE_URL: pos.url,
    POS_API_KEY: KEY,
    STORE_URL: redis.url,
    INSTANCE_ID: id,
    GROUP_LEASE_MS: '2000',
    WEBHOOK_CLAIM_IDLE_MS: '2000',
    CATALOG_SYNC_CRON: YEARLY,
    STOCK_SYNC_CRON: YEARLY,
    // The Google feed requires links: without them it leaves every item out, and nothing is inserted.
    FEED_PRODUCT_URL: 'https://shop.example/p/{id}',
    FEED_IMAGE_URL: 'https://shop.example/i/{id}.jpg',
    GOOGLE_MERCHANT_ACCOUNT_ID: ACCOUNT,
    GOOGLE_MERCHANT_DATA_SOURCE_ID: DATA_SOURCE,
    GOOGLE_APPLICATION_CREDENTIALS: keyFile,
    GOOGLE_OAUTH_TOKEN_URL: google.tokenUrl,
    GOOGLE_MERCHANT_API_URL: google.baseUrl,
    GOOGLE_QUOTA_REFRESH_MS: '1000',
    ADMIN_TOKEN,
    PUSH_TIMEOUT_MS: '1000',
    PUSH_MAX_BACKOFF_MS: '1000',
    ...extra,
  });
  const instance = { app: await startApp(config, { logger }), google };
  running.push(instance);
  return instance;
}

/** Polls `probe` until it answers something other than `undefined` (bounded: about 20 s). */
async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await Promise.resolve(probe()).catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

type Ready = {
  group?: { role: string };
  push?: Record<string, { pending: number; quota?: { used: number; limit: number } }>;
};
async function readyz(instance: Instance): Promise<Ready> {
  return (await fetch(`${instance.app.url}/readyz`)).json() as Promise<Ready>;
}

const isPushCall = (url: string) => /^\/(products|inventories)\/v1\//.test(url);
const isQuotaRead = (url: string) => url.startsWith('/quota/v1/');

describe.skipIf(binary === null)('group/Google push on one Redis', () => {
  beforeAll(async () => {
    redis = await startRedisServer(binary as string);
    pos = await startSandbox({
      units: 2,
      articles: 20,
      seed: 11,
      salesPerMinute: 0,
      apiKey: KEY,
      host: '127.0.0.1',
      port: 0,
      logger,
    });
  });

  afterEach(async () => {
    for (const instance of running.splice(0).reverse()) await instance.app.stop();
    for (const google of fakes.splice(0)) await google.close();
    const client = createClient({ url: redis.url });
    await client.connect();
    await client.flushAll();
    await client.close();
  }, 30_000);

  afterAll(async () => {
    await pos?.stop();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the follower reads nothing from Google yet shows the quota; taking the lead, it reads the quotas before sending', {
    timeout: 90_000,
  }, async () => {
    const a = await startInstance('google-a');
    await a.app.initialSync;
    const b = await startInstance('google-b');
    await b.app.initialSync;
    const count = a.app.catalog.current()?.products.length ?? 0;
    await until(() => (a.google.products.size === count && count > 0 ? true : undefined), 'the leader inserted the catalog');
    // Several of the leader's quota reads (every second) pass: the follower's fake hears nothing at all.
    const reads = a.google.quotaReads();
    await until(() => (a.google.quotaReads() >= reads + 3 ? true : undefined), 'the leader read the quotas again');
    expect(b.google.requests).toHaveLength(0);
    // The follower's /readyz shows the leader's quota, from the shared state.
    const quota = await until(async () => (await readyz(b)).push?.['google']?.quota, 'the quota on the follower');
    expect(quota.limit).toBe(100_000);

    // The leader stops; the follower leads, reads the quotas, then sends what is pending (nothing lost).
    await a.app.stop();
    running.splice(running.indexOf(a), 1);
    await until(async () => ((await readyz(b)).group?.role === 'leader' ? true : undefined), 'the follower leads');
    await until(() => (b.google.quotaReads() > 0 ? true : undefined), 'the new leader read the quotas');
    // Sent through the new leader: a re-insert of everything (its fake is empty), after a quota read.
    const reconcile = await fetch(`${b.app.url}/admin/push/reconcile?channel=google`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'application/json' },
    });
    expect(reconcile.status).toBe(202);
    await until(() => (b.google.requests.some((request) => isPushCall(request.url)) ? true : undefined), 'the new leader sent');
    const urls = b.google.requests.map((request) => request.url);
    const firstQuota = urls.findIndex(isQuotaRead);
    const firstPush = urls.findIndex(isPushCall);
    expect(firstQuota).toBeGreaterThanOrEqual(0);
    expect(firstQuota).toBeLessThan(firstPush);
  });

  it("only the leader reads Google's verdicts; the follower shows the same from the store", { timeout: 90_000 }, async () => {
    const every = { GOOGLE_STATUS_INTERVAL_MS: '1000' };
    const a = await startInstance('verdicts-a', every);
    await a.app.initialSync;
    const b = await startInstance('verdicts-b', every);
    await b.app.initialSync;
    const id = a.app.catalog.current()?.products[0]?.id ?? '';
    await until(() => (a.google.products.has(`cs~CZ~${id}`) ? true : undefined), 'the leader inserted the product');
    a.google.statuses.set(`cs~CZ~${id}`, {
      destinationStatuses: [{ reportingContext: 'SHOPPING_ADS', disapprovedCountries: ['CZ'] }],
      itemLevelIssues: [{ code: 'price_mismatch', severity: 'DISAPPROVED', attribute: 'price' }],
    });
    type Verdicts = { verdicts?: { counts: { disapproved: number }; readAt?: string } };
    const verdictsOf = async (instance: Instance) =>
      ((await (await fetch(`${instance.app.url}/readyz`)).json()) as { push?: { google?: Verdicts } }).push?.google?.verdicts;
    await until(
      async () => ((await verdictsOf(b))?.counts.disapproved === 1 ? true : undefined),
      'the follower shows the read',
      40_000,
    );
    const onFollower = (await (await fetch(`${b.app.url}/api/products/${encodeURIComponent(id)}`)).json()) as {
      channels?: { google?: { verdict?: { status: string; issues: { code: string }[] } } };
    };
    expect(onFollower.channels?.google?.verdict?.status).toBe('disapproved');
    expect(onFollower.channels?.google?.verdict?.issues.map((issue) => issue.code)).toEqual(['price_mismatch']);
    // Both show the read the store holds (the leader reads every second: the same one, once the follower caught up).
    await until(
      async () => ((await verdictsOf(a))?.readAt === (await verdictsOf(b))?.readAt ? true : undefined),
      'both instances show the same read',
      40_000,
    );
    expect(a.google.productListReads()).toBeGreaterThan(0);
    expect(b.google.productListReads()).toBe(0);
  });
});
