import { describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/wait-for.js';
import {
  ADMIN,
  binary,
  clearRequests,
  EVERY_TWO_SECONDS,
  group,
  type Instance,
  LEASE_MS,
  leaderOf,
  oneEtag,
  readyz,
  setFault,
  startInstances,
  unitListCalls,
  useGroup,
} from './scale-out-kit.js';

/**
 * Several bridge processes on one real redis-server (docs/scale-out.md): one leader runs the schedule and
 * is replaced when it dies; a paused leader cannot publish.
 */

describe.skipIf(binary === null)('group/the schedule and leadership on one Redis', () => {
  useGroup();

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
    const handedFrom = Date.now();
    // The new leader runs the schedule: its first sync ends (however long a busy machine makes it), and a
    // window of at least 4 s is watched.
    await waitFor(
      async () => {
        const outcome = (await readyz(next)).jobs?.['sync-catalog']?.outcome;
        return outcome === 'published' || outcome === 'unchanged' ? true : undefined;
      },
      { timeoutMs: 30_000, message: "the new leader's scheduled sync" },
    );
    const watched = Date.now() - handedFrom;
    if (watched < 4_000) await new Promise((resolve) => setTimeout(resolve, 4_000 - watched));
    // It alone runs it (two instances each running it would make twice as many).
    expect(await unitListCalls()).toBeLessThanOrEqual(Math.ceil((Date.now() - handedFrom) / 2_000) + 1);
    await oneEtag(rest);
  });

  it('fences a leader paused past its lease: its sync cannot publish when it resumes', { timeout: 90_000 }, async () => {
    const instances = await startInstances(2);
    await oneEtag(instances);
    const leader = await leaderOf(instances);
    const other = instances.find((instance) => instance !== leader) as Instance;

    // The leader's next sync reads a changed stock (a sale not delivered) and waits for slow price lists;
    // it is paused meanwhile.
    await group.pos.makeSale({ unitCode: 'U1' });
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
});
