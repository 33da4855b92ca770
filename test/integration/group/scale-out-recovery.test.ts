import { describe, expect, it } from 'vitest';
import { startRedisServer } from '../../helpers/redis-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import {
  binary,
  group,
  type Instance,
  leaderOf,
  oneEtag,
  postEvent,
  readyz,
  sale,
  setFault,
  startInstances,
  useGroup,
} from './scale-out-kit.js';

/**
 * Several bridge processes on one real redis-server (docs/scale-out.md): events left by a killed instance
 * are processed by another, and a Redis restarted empty is recovered from without a restart.
 */

describe.skipIf(binary === null)('group/recovery from a killed instance and from Redis away', () => {
  useGroup();

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

  it('keeps serving while Redis is away, refuses webhooks meanwhile, and recovers from a Redis restarted empty', {
    timeout: 90_000,
  }, async () => {
    const instances = await startInstances(2);
    const before = await oneEtag(instances);
    await group.redis.stop();
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

    group.redis = await startRedisServer(binary as string, { port: group.redis.port });
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
