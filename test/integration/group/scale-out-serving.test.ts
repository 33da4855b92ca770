import { describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/wait-for.js';
import {
  ADMIN,
  binary,
  group,
  type Instance,
  leaderOf,
  metricSum,
  oneEtag,
  postEvent,
  sale,
  startInstances,
  stockOf,
  useGroup,
} from './scale-out-kit.js';

/**
 * Several bridge processes on one real redis-server (docs/scale-out.md): every instance serves the same
 * version, a sale sent to one shows on all, an event delivered to two instances is applied once, and a
 * changes.json cursor of one instance is answered by the others and after a restart.
 */

describe.skipIf(binary === null)('group/one version served by every instance', () => {
  useGroup();

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
    group.pos.setWebhookUrl(`${follower.url}/webhooks/pos`);
    const sold = await group.pos.makeSale({ unitCode: 'U1' });
    const line = sold.lines[0];
    if (line === undefined) throw new Error('a sale without lines');
    const afterSale = await oneEtag(instances, first);
    group.pos.setWebhookUrl(undefined);
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

  it('answers a changes.json cursor of one instance on the others and after a restart', { timeout: 90_000 }, async () => {
    const instances = await startInstances(2);
    await oneEtag(instances);
    const [a, b] = instances as [Instance, Instance];
    const cursorOf = async (instance: Instance, since?: string) => {
      const response = await fetch(`${instance.url}/feeds/U1/changes.json${since === undefined ? '' : `?since=${since}`}`);
      return { status: response.status, body: (await response.json()) as { next?: string; changes?: { id: string }[] } };
    };
    const start = (await cursorOf(a)).body.next as string;
    group.pos.setWebhookUrl(`${a.url}/webhooks/pos`);
    const sold = await group.pos.makeSale({ unitCode: 'U1' });
    const id = sold.lines[0]?.localId;
    await waitFor(async () => ((await cursorOf(b)).body.next !== start ? true : undefined));
    await oneEtag(instances);
    group.pos.setWebhookUrl(undefined);

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
});
