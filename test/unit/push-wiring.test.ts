import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/adapters/metrics/create-metrics.js';
import { createTestConfig } from '../../src/config/load-config.js';
import { createPushWiring } from '../../src/push-wiring.js';

/** The push's wiring decisions (docs/channel-push.md): nothing without a channel, none on Redis yet, one status per channel. */

const logger = pino({ level: 'silent' });
const catalog = { onChange: () => undefined, current: () => undefined };
const changeLog = { changesSince: async () => ({ ok: false as const }) };

function wiring(env: Record<string, string>) {
  return createPushWiring({
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

  it('creates nothing on a Redis store (not wired for groups yet)', () => {
    expect(wiring({ STORE_URL: 'redis://127.0.0.1:1', SHOPTET_API_TOKEN: 'tok' })).toBeUndefined();
  });

  it('reports each configured channel, paused as PUSH_PAUSED says, and stops cleanly', async () => {
    const push = wiring({ SHOPTET_API_TOKEN: 'tok', META_CATALOG_ID: '1', META_ACCESS_TOKEN: 'abc', PUSH_PAUSED: 'meta' });
    expect(push).toBeDefined();
    push?.start();
    for (let attempt = 0; attempt < 200 && Object.keys(push?.status() ?? {}).length < 2; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(push?.status()).toEqual({
      meta: { enabled: true, mode: 'paused', pending: 0 },
      shoptet: { enabled: true, mode: 'live', pending: 0 },
    });
    await push?.stop();
  });
});
