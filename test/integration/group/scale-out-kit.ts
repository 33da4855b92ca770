import { createClient } from '@keyv/redis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start-sandbox.js';
import { type BridgeProcess, killAll, spawnBridge } from '../../helpers/bridge-process.js';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * The kit of the group tests: several bridge processes on one real redis-server against the sandbox POS over
 * real HTTP (docs/scale-out.md). Split over three files (schedule and leadership, serving, recovery) so they
 * run side by side: each starts its own Redis and POS.
 */

export const binary = inject('redisServerBinary');
export const KEY = 'sandbox-key';
export const ADMIN = 'admin-token-0001';
export const LEASE_MS = 2_000;
export const EVERY_TWO_SECONDS = '*/2 * * * * *';
export const YEARLY = '0 0 1 1 *';

/** The group's Redis and POS, made by `useGroup`'s hooks (a test may restart Redis on its port). */
export const group = {} as { redis: RedisServer; pos: RunningSandbox };

export interface Instance {
  readonly process: BridgeProcess;
  readonly url: string;
  readonly id: string;
}

export interface Ready {
  readonly ready: boolean;
  readonly version?: string;
  readonly store?: { readonly up: boolean };
  readonly group?: { readonly role: string; readonly leader?: string; readonly behind: number };
  readonly jobs?: Record<string, { readonly outcome: string; readonly error?: { readonly code: string } } | null>;
  readonly webhooks?: { readonly sales: Record<string, number> };
}

export async function startInstances(count: number, env: Record<string, string> = {}, first = 1): Promise<Instance[]> {
  const spawned = Array.from({ length: count }, (_, index) => {
    const id = `bridge-${first + index}`;
    return {
      id,
      process: spawnBridge({
        POS_BASE_URL: group.pos.url,
        POS_API_KEY: KEY,
        STORE_URL: group.redis.url,
        INSTANCE_ID: id,
        GROUP_LEASE_MS: String(LEASE_MS),
        WEBHOOK_CLAIM_IDLE_MS: '2000',
        ADMIN_TOKEN: ADMIN,
        CATALOG_SYNC_CRON: YEARLY,
        STOCK_SYNC_CRON: YEARLY,
        ...env,
      }),
    };
  });
  return Promise.all(spawned.map(async ({ id, process }) => ({ id, process, url: (await process.listening()).url })));
}

export async function readyz(instance: Instance): Promise<Ready> {
  return (await fetch(`${instance.url}/readyz`)).json() as Promise<Ready>;
}

/** The ETag every instance serves for the JSON catalog, once they all serve the same one (and it is not `not`). */
export async function oneEtag(instances: readonly Instance[], not?: string): Promise<string> {
  return waitFor(async () => {
    const tags = await Promise.all(
      instances.map(async (instance) => {
        const response = await fetch(`${instance.url}/feeds/all/products.json`, { method: 'HEAD' });
        return response.status === 200 ? response.headers.get('etag') : null;
      }),
    );
    const first = tags[0];
    return first != null && first !== not && tags.every((tag) => tag === first) ? first : undefined;
  });
}

export async function leaderOf(instances: readonly Instance[]): Promise<Instance> {
  return waitFor(async () => {
    const roles = await Promise.all(instances.map(async (instance) => (await readyz(instance)).group?.role));
    const leaders = instances.filter((_, index) => roles[index] === 'leader');
    return leaders.length === 1 ? leaders[0] : undefined;
  });
}

export async function unitListCalls(): Promise<number> {
  const log = (await (await fetch(`${group.pos.url}/sandbox/requests`, { headers: { 'x-api-key': KEY } })).json()) as
    | { path: string }[]
    | { requests: { path: string }[] };
  const requests = Array.isArray(log) ? log : log.requests;
  return requests.filter((request) => request.path.startsWith('/ext/unit/list')).length;
}

export async function clearRequests(): Promise<void> {
  await fetch(`${group.pos.url}/sandbox/requests`, { method: 'DELETE', headers: { 'x-api-key': KEY } });
}

export async function setFault(rule: object | undefined): Promise<void> {
  await fetch(`${group.pos.url}/sandbox/faults`, {
    method: rule === undefined ? 'DELETE' : 'PUT',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    ...(rule === undefined ? {} : { body: JSON.stringify(rule) }),
  });
}

export async function stockOf(instance: Instance, unit: string, id: string): Promise<number | null | undefined> {
  const body = (await (await fetch(`${instance.url}/feeds/${unit}/products.json`)).json()) as {
    items: { id: string; stock?: number | null }[];
  };
  return body.items.find((item) => item.id === id)?.stock;
}

export async function metricSum(instances: readonly Instance[], pattern: RegExp): Promise<number> {
  let sum = 0;
  for (const instance of instances) {
    const text = await (await fetch(`${instance.url}/metrics`)).text();
    const line = text.split('\n').find((entry) => pattern.test(entry));
    sum += line === undefined ? 0 : Number(line.split(' ').pop());
  }
  return sum;
}

export function postEvent(instance: Instance, event: object): Promise<Response> {
  return fetch(`${instance.url}/webhooks/pos`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: JSON.stringify(event),
  });
}

/** A sale at the sandbox (not delivered), as the POS's webhook would carry it. */
export async function sale(unit: string) {
  const made = await group.pos.makeSale({ unitCode: unit });
  const line = made.lines[0];
  if (line === undefined) throw new Error('a sale without lines');
  return { made, line, event: { timestamp: made.createdAt, event: 'accounting.receipt.sale', data: made.receipt } };
}

export async function flushRedis(): Promise<void> {
  const client = createClient({ url: group.redis.url });
  await client.connect();
  await client.flushAll();
  await client.close();
}

/** The hooks of a file of group tests: Redis and the sandbox POS once; every instance killed after each test. */
export function useGroup(): void {
  beforeAll(async () => {
    group.redis = await startRedisServer(binary as string);
    group.pos = await startSandbox({
      units: 2,
      articles: 300,
      seed: 5,
      salesPerMinute: 0,
      apiKey: KEY,
      host: '127.0.0.1',
      port: 0,
      logger: pino({ level: 'silent' }),
    });
  });

  afterEach(async () => {
    killAll();
    group.pos.setWebhookUrl(undefined);
    await setFault(undefined);
    await flushRedis();
  });

  afterAll(async () => {
    killAll();
    await group.pos?.stop();
    await group.redis?.stop();
  });
}
