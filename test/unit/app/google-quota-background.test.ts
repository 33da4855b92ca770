import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryPushOutbox } from '../../../src/adapters/push/memory-push-outbox.js';
import { googleQuotaBackground } from '../../../src/app/push-channel-parts.js';
import type { PushChannelStatus } from '../../../src/services/push/push-status.js';

/** The leader's Google quota in the shared state, so a follower (reading nothing from Google) shows it too. */

describe('Google quota in the outbox state', () => {
  // The background writes on its interval: fake timers run its ticks, no test waits on the wall clock.
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('the leader writes the last read quota; a follower writes nothing', async () => {
    const outbox = createMemoryPushOutbox();
    let status: Partial<PushChannelStatus> = {};
    let leader = false;
    const background = googleQuotaBackground({ status: () => status }, 2)({ outbox, isLeader: () => leader });
    status = { quota: { used: 10, limit: 100, resetAt: '2026-11-27T12:00:00.000Z' } };
    // Fifteen ticks as a follower.
    await vi.advanceTimersByTimeAsync(30);
    expect((await outbox.state('google')).quota).toBeUndefined();
    leader = true;
    await vi.advanceTimersByTimeAsync(2);
    expect((await outbox.state('google')).quota?.used).toBe(10);
    status = { quota: { used: 12, limit: 100, resetAt: '2026-11-27T12:00:00.000Z' } };
    await vi.advanceTimersByTimeAsync(2);
    expect((await outbox.state('google')).quota).toEqual({ used: 12, limit: 100, resetAt: '2026-11-27T12:00:00.000Z' });
    background.stop();
  });
});
