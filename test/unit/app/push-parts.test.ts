import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/adapters/metrics/create-metrics.js';
import { createMemoryPushOutbox } from '../../../src/adapters/push/memory-push-outbox.js';
import { createPushWiring, type PushGroup, watchLeadership } from '../../../src/app/push-parts.js';
import { createTestConfig } from '../../helpers/test-config.js';

/**
 * The push's wiring decisions (docs/channel-push.md): nothing without a channel, a Redis store only with its
 * group's outbox, one status per channel, and a new leader told at once.
 */

const logger = pino({ level: 'silent' });
const catalog = { onChange: () => undefined, current: () => undefined };
const changeLog = { changesSince: async () => ({ ok: false as const }) };

function wiring(env: Record<string, string>, group?: PushGroup) {
  return createPushWiring({
    ...(group === undefined ? {} : { group, isLeader: () => false }),
    config: createTestConfig(env),
    catalog,
    changeLog,
    metrics: createMetrics({ defaultMetrics: false }),
    logger,
    links: {},
  });
}

describe('push wiring', () => {
  it('creates nothing when no channel is configured', () => {
    expect(wiring({})).toBeUndefined();
  });

  it('creates nothing on a Redis store given without its group', () => {
    expect(wiring({ STORE_URL: 'redis://127.0.0.1:1', SHOPTET_API_TOKEN: 'tok' })).toBeUndefined();
  });

  it('uses the group’s outbox on a Redis store, and leaves it open on stop', async () => {
    const outbox = createMemoryPushOutbox();
    let opened = 0;
    let closed = 0;
    const group: PushGroup = {
      outbox: () => {
        opened += 1;
        return {
          ...outbox,
          close: async () => {
            closed += 1;
          },
        };
      },
      fence: () => undefined,
    };
    const push = wiring({ STORE_URL: 'redis://127.0.0.1:1', SHOPTET_API_TOKEN: 'tok' }, group);
    expect(push).toBeDefined();
    expect(opened).toBe(1);
    await push?.stop();
    // The wiring closes its outbox; the Redis outbox's `close` leaves the group's connection open.
    expect(closed).toBe(1);
  });

  it('tells when this instance becomes leader, once per takeover', async () => {
    let leader = false;
    let told = 0;
    const watch = watchLeadership(
      () => leader,
      () => {
        told += 1;
      },
      5,
    );
    const waitTicks = () => new Promise((resolve) => setTimeout(resolve, 30));
    await waitTicks();
    expect(told).toBe(0);
    leader = true;
    for (let attempt = 0; attempt < 100 && told === 0; attempt++) await waitTicks();
    expect(told).toBe(1);
    await waitTicks();
    expect(told).toBe(1);
    leader = false;
    await waitTicks();
    leader = true;
    for (let attempt = 0; attempt < 100 && told === 1; attempt++) await waitTicks();
    expect(told).toBe(2);
    watch.stop();
  });

  it('reports each configured channel, paused as PUSH_PAUSED says, and stops cleanly', async () => {
    const push = wiring({ SHOPTET_API_TOKEN: 'tok', META_CATALOG_ID: '1', META_ACCESS_TOKEN: 'abc', PUSH_PAUSED: 'meta' });
    expect(push).toBeDefined();
    push?.start();
    for (let attempt = 0; attempt < 200 && Object.keys(push?.status() ?? {}).length < 2; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Partly: after the first outbox read each status also says when it was read (`checkedAt`).
    expect(push?.status()).toMatchObject({
      meta: { enabled: true, mode: 'paused', pending: 0 },
      shoptet: { enabled: true, mode: 'live', pending: 0 },
    });
    await push?.stop();
  });
});
