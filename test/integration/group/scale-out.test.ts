import { createClient } from '@keyv/redis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start-sandbox.js';
import { type BridgeProcess, killAll, spawnBridge } from '../../helpers/bridge-process.js';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * Several bridge processes on one real redis-server against the sandbox POS over real HTTP
 * (docs/scale-out.md): one leader runs the schedule and is replaced when it dies, a paused leader cannot
 * publish, every instance serves the same version, a sale sent to one shows on all, an event delivered to
 * two instances is applied once, events left by a killed instance are processed by another, and a Redis
 * restarted empty is recovered from without a restart.
 */

const binary = inject('redisServerBinary');
const KEY = 'sandbox-key';
const ADMIN = 'admin-token-0001';
const LEASE_MS = 2_000;
const EVERY_TWO_SECONDS = '*/2 * * * * *';
const YEARLY = '0 0 1 1 *';

let redis: RedisServer;
let pos: RunningSandbox;

interface Instance {
  readonly process: BridgeProcess;
  readonly url: string;
  readonly id: string;
}

interface Ready {
  readonly ready: boolean;
  readonly version?: string;
  readonly store?: { readonly up: boolean };
  readonly group?: { readonly role: string; readonly leader?: string; readonly behind: number };
  readonly jobs?: Record<string, { readonly outcome: string; readonly error?: { readonly code: string } } | null>;
  readonly webhooks?: { readonly sales: Record<string, number> };
}

async function startInstances(count: number, env: Record<string, string> = {}, first = 1): Promise<Instance[]> {
  const spawned = Array.from({ length: count }, (_, index) => {
    const id = `bridge-${first + index}`;
    return {
      id,
      process: spawnBridge({
        POS_BASE_URL: pos.url,
        POS_API_KEY: KEY,
        STORE_URL: redis.url,
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

async function readyz(instance: Instance): Promise<Ready> {
  return (await fetch(`${instance.url}/readyz`)).json() as Promise<Ready>;
}

/** The ETag every instance serves for the JSON catalog, once they all serve the same one (and it is not `not`). */
async function oneEtag(instances: readonly Instance[], not?: string): Promise<string> {
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

async function leaderOf(instances: readonly Instance[]): Promise<Instance> {
  return waitFor(async () => {
    const roles = await Promise.all(instances.map(async (instance) => (await readyz(instance)).group?.role));
    const leaders = instances.filter((_, index) => roles[index] === 'leader');
    return leaders.length === 1 ? leaders[0] : undefined;
  });
}

async function unitListCalls(): Promise<number> {
  const log = (await (await fetch(`${pos.url}/sandbox/requests`, { headers: { 'x-api-key': KEY } })).json()) as
    | { path: string }[]
    | { requests: { path: string }[] };
  const requests = Array.isArray(log) ? log : log.requests;
  return requests.filter((request) => request.path.startsWith('/ext/unit/list')).length;
}

async function clearRequests(): Promise<void> {
  await fetch(`${pos.url}/sandbox/requests`, { method: 'DELETE', headers: { 'x-api-key': KEY } });
}

async function setFault(rule: object | undefined): Promise<void> {
  await fetch(`${pos.url}/sandbox/faults`, {
    method: rule === undefined ? 'DELETE' : 'PUT',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    ...(rule === undefined ? {} : { body: JSON.stringify(rule) }),
  });
}

async function stockOf(instance: Instance, unit: string, id: string): Promise<number | null | undefined> {
  const body = (await (await fetch(`${instance.url}/feeds/${unit}/products.json`)).json()) as {
    items: { id: string; stock?: number | null }[];
  };
  return body.items.find((item) => item.id === id)?.stock;
}

async function metricSum(instances: readonly Instance[], pattern: RegExp): Promise<number> {
  let sum = 0;
  for (const instance of instances) {
    const text = await (await fetch(`${instance.url}/metrics`)).text();
    const line = text.split('\n').find((entry) => pattern.test(entry));
    sum += line === undefined ? 0 : Number(line.split(' ').pop());
  }
  return sum;
}

function postEvent(instance: Instance, event: object): Promise<Response> {
  return fetch(`${instance.url}/webhooks/pos`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: JSON.stringify(event),
  });
}

/** A sale at the sandbox (not delivered), as the POS's webhook would carry it. */
async function sale(unit: string) {
  const made = await pos.makeSale({ unitCode: unit });
  const line = made.lines[0];
  if (line === undefined) throw new Error('a sale without lines');
  return { made, line, event: { timestamp: made.createdAt, event: 'accounting.receipt.sale', data: made.receipt } };
}

async function flushRedis(): Promise<void> {
  const client = createClient({ url: redis.url });
  await client.connect();
  await client.flushAll();
  await client.close();
}

describe.skipIf(binary === null)('group/several instances on one Redis', () => {
  beforeAll(async () => {
    redis = await startRedisServer(binary as string);
    pos = await startSandbox({
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
    pos.setWebhookUrl(undefined);
    await setFault(undefined);
    await flushRedis();
  });

  afterAll(async () => {
    killAll();
    await pos?.stop();
    await redis?.stop();
  });

  it('runs each scheduled sync once in the group, and hands the schedule on when the leader dies', {
    timeout: 90_000,
  }, async () => {
    const instances = await startInstances(3, { CATALOG_SYNC_CRON: EVERY_TWO_SECONDS });
    await oneEtag(instances);
    const leader = await leaderOf(instances);
    for (const instance of instances) {
      const ready = await readyz(instance);
      expect(ready.group?.leader).toBe(leader.id);
      // Followers run no sync of their own; they serve the leader's.
      if (instance !== leader) expect(ready.jobs?.['sync-catalog'] ?? null).toBeNull();
    }

    // Operators see the group: the role and the leader on the status page, the role in the metrics.
    const page = await (await fetch(`${leader.url}/`)).text();
    expect(page).toContain('id="group"');
    expect(page).toContain('leads the group');
    const follower = instances.find((instance) => instance !== leader) as Instance;
    expect(await (await fetch(`${follower.url}/`)).text()).toContain(`the leader is <code>${leader.id}</code>`);
    expect(await (await fetch(`${leader.url}/metrics`)).text()).toMatch(/^catalog_bridge_group_leader 1$/m);
    expect(await (await fetch(`${follower.url}/metrics`)).text()).toMatch(/^catalog_bridge_group_leader 0$/m);

    await clearRequests();
    const watchedFrom = Date.now();
    // The group's schedule runs: two full syncs, however long a busy machine makes each (a fixed 8 s window
    // saw only one when a sync ran long).
    await waitFor(async () => (await unitListCalls()) >= 2, { timeoutMs: 30_000, message: 'two scheduled syncs' });
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    // One full sync every 2 s in the group: at most one per tick of the window, plus the one running as it
    // opened (three instances each running theirs would make three times as many).
    const calls = await unitListCalls();
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(calls).toBeLessThanOrEqual(Math.ceil((Date.now() - watchedFrom) / 2_000) + 1);

    leader.process.child.kill('SIGKILL');
    const killedAt = Date.now();
    const rest = instances.filter((instance) => instance !== leader);
    const next = await leaderOf(rest);
    // Within the lease time, plus one round of the others' attempts to take it.
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS + LEASE_MS / 3 + 2_000);
    await clearRequests();
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(await unitListCalls()).toBeLessThanOrEqual(4);
    expect((await readyz(next)).jobs?.['sync-catalog']?.outcome).toMatch(/published|unchanged/);
    await oneEtag(rest);
  });

  it('serves one version everywhere: a full sync’s and a sale’s sent to one instance; an event sent to two is applied once', {
    timeout: 90_000,
  }, async () => {
    const instances = await startInstances(3);
    const first = await oneEtag(instances);
    const leader = await leaderOf(instances);
    const follower = instances.find((instance) => instance !== leader) as Instance;

    // A sync asked of a follower runs on the leader; every instance serves its version.
    const asked = await fetch(`${follower.url}/admin/sync?wait=true&job=catalog`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(asked.status).toBe(200);

    // A sale delivered to one instance shows on all.
    pos.setWebhookUrl(`${follower.url}/webhooks/pos`);
    const sold = await pos.makeSale({ unitCode: 'U1' });
    const line = sold.lines[0];
    if (line === undefined) throw new Error('a sale without lines');
    const afterSale = await oneEtag(instances, first);
    pos.setWebhookUrl(undefined);
    const stocks = await Promise.all(instances.map((instance) => stockOf(instance, 'U1', line.localId)));
    expect(new Set(stocks).size).toBe(1);

    // The same event to two instances at the same moment: accepted by one, a duplicate at the other.
    const appliedBefore = await metricSum(instances, /^catalog_bridge_webhook_sales_total\{outcome="applied"\}/);
    const twice = await sale('U2');
    const answers = await Promise.all([
      postEvent(instances[0] as Instance, twice.event),
      postEvent(instances[1] as Instance, twice.event),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    await oneEtag(instances, afterSale);
    await waitFor(async () =>
      (await metricSum(instances, /^catalog_bridge_webhook_sales_total\{outcome="applied"\}/)) === appliedBefore + 1
        ? true
        : undefined,
    );
    expect(await metricSum(instances, /^catalog_bridge_webhook_events_total\{event="sale",outcome="duplicate"\}/)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await metricSum(instances, /^catalog_bridge_webhook_sales_total\{outcome="applied"\}/)).toBe(appliedBefore + 1);
  });

  it('fences a leader paused past its lease: its sync cannot publish when it resumes', { timeout: 90_000 }, async () => {
    const instances = await startInstances(2);
    await oneEtag(instances);
    const leader = await leaderOf(instances);
    const other = instances.find((instance) => instance !== leader) as Instance;

    // The leader's next sync reads a changed stock (a sale not delivered) and waits for slow price lists;
    // it is paused meanwhile.
    await pos.makeSale({ unitCode: 'U1' });
    await setFault({ endpoint: 'price-list', mode: 'latency', latencyMs: 3_000 });
    const started = await fetch(`${leader.url}/admin/sync?job=catalog`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(started.status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 500));
    leader.process.child.kill('SIGSTOP');
    await setFault(undefined);
    await leaderOf([other]);
    const taken = await oneEtag([other]);

    leader.process.child.kill('SIGCONT');
    const report = await waitFor(async () => {
      const ready = await readyz(leader);
      const last = ready.jobs?.['sync-catalog'];
      return last?.outcome === 'failed' ? { ready, last } : undefined;
    });
    expect(report.last.error?.code).toBe('LEASE_LOST');
    expect(report.ready.group?.role).toBe('follower');
    // Nothing the resumed instance made was published: both serve the new leader's version.
    expect(await oneEtag(instances)).toBe(taken);
  });

  it('processes the events a killed instance accepted on another instance', { timeout: 90_000 }, async () => {
    // No catalog can be made yet (the POS fails): the instance accepts sales and keeps them for later.
    await setFault({ endpoint: 'unit-list', mode: 'error', status: 503 });
    const [doomed] = (await startInstances(1)) as [Instance];
    const events = [await sale('U1'), await sale('U2')];
    for (const { event } of events) expect((await postEvent(doomed, event)).status).toBe(200);
    doomed.process.child.kill('SIGKILL');

    await setFault(undefined);
    const [heir] = (await startInstances(1, {}, 2)) as [Instance];
    await oneEtag([heir]);
    const handled = await waitFor(
      async () => {
        const ready = await readyz(heir);
        const sales = ready.webhooks?.sales ?? {};
        const done = (sales['applied'] ?? 0) + (sales['refetched'] ?? 0);
        return done >= events.length ? done : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(handled).toBe(events.length);
    expect((await (await fetch(`${heir.url}/metrics`)).text()).match(/^catalog_bridge_webhook_inbox_claims (\d+)/m)?.[1]).toBe(
      '2',
    );
  });

  it('answers a changes.json cursor of one instance on the others and after a restart', { timeout: 90_000 }, async () => {
    const instances = await startInstances(2);
    await oneEtag(instances);
    const [a, b] = instances as [Instance, Instance];
    const cursorOf = async (instance: Instance, since?: string) => {
      const response = await fetch(`${instance.url}/feeds/U1/changes.json${since === undefined ? '' : `?since=${since}`}`);
      return { status: response.status, body: (await response.json()) as { next?: string; changes?: { id: string }[] } };
    };
    const start = (await cursorOf(a)).body.next as string;
    pos.setWebhookUrl(`${a.url}/webhooks/pos`);
    const sold = await pos.makeSale({ unitCode: 'U1' });
    const id = sold.lines[0]?.localId;
    await waitFor(async () => ((await cursorOf(b)).body.next !== start ? true : undefined));
    await oneEtag(instances);
    pos.setWebhookUrl(undefined);

    const onOther = await cursorOf(b, start);
    expect(onOther.status).toBe(200);
    expect(onOther.body.changes?.map((change) => change.id)).toContain(id);

    // Restarted: the cursor is answered from the history kept beside the catalog.
    b.process.child.kill('SIGKILL');
    const [restarted] = (await startInstances(1, {}, 3)) as [Instance];
    await oneEtag([a, restarted]);
    const afterRestart = await cursorOf(restarted, start);
    expect(afterRestart.status).toBe(200);
    expect(afterRestart.body.changes?.map((change) => change.id)).toContain(id);
    expect((await cursorOf(restarted, 'v-made-up')).status).toBe(410);
  });

  it('keeps serving while Redis is away, refuses webhooks meanwhile, and recovers from a Redis restarted empty', {
    timeout: 90_000,
  }, async () => {
    const instances = await startInstances(2);
    const before = await oneEtag(instances);
    await redis.stop();
    await waitFor(async () => ((await readyz(instances[0] as Instance)).store?.up === false ? true : undefined));
    for (const instance of instances) {
      const feed = await fetch(`${instance.url}/feeds/all/products.json`, { method: 'HEAD' });
      expect(feed.status).toBe(200);
      expect(feed.headers.get('etag')).toBe(before);
      const during = await sale('U1');
      const answer = await postEvent(instance, during.event);
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).not.toBeNull();
    }

    redis = await startRedisServer(binary as string, { port: redis.port });
    await waitFor(async () => {
      const states = await Promise.all(instances.map(readyz));
      return states.every((state) => state.store?.up === true) ? true : undefined;
    });
    await leaderOf(instances);
    // The group works again: a sale sent to one instance shows on both.
    const after = await sale('U2');
    expect((await postEvent(instances[1] as Instance, after.event)).status).toBe(200);
    await oneEtag(instances, before);
    for (const instance of instances) expect((await readyz(instance)).ready).toBe(true);
  });
});
