import { describe, expect, it } from 'vitest';
import { createMemoryPushOutbox } from '../../../src/adapters/push/memory-push-outbox.js';
import { googleQuotaBackground } from '../../../src/app/push-channel-parts.js';
import type { PushChannelStatus } from '../../../src/services/push/push-status.js';

/** The leader's Google quota in the shared state, so a follower (reading nothing from Google) shows it too. */

async function settle(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return check();
}

describe('Google quota in the outbox state', () => {
  it('the leader writes the last read quota; a follower writes nothing', async () => {
    const outbox = createMemoryPushOutbox();
    let status: Partial<PushChannelStatus> = {};
    let leader = false;
    const background = googleQuotaBackground({ status: () => status }, 2)({ outbox, isLeader: () => leader });
    status = { quota: { used: 10, limit: 100, resetAt: '2026-11-27T12:00:00.000Z' } };
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect((await outbox.state('google')).quota).toBeUndefined();
    leader = true;
    expect(await settle(async () => (await outbox.state('google')).quota?.used === 10)).toBe(true);
    status = { quota: { used: 12, limit: 100, resetAt: '2026-11-27T12:00:00.000Z' } };
    expect(await settle(async () => (await outbox.state('google')).quota?.used === 12)).toBe(true);
    expect((await outbox.state('google')).quota).toEqual({ used: 12, limit: 100, resetAt: '2026-11-27T12:00:00.000Z' });
    background.stop();
  });
});
