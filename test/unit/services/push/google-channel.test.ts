import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { ChannelClient, PushBatchItem, PushOutcome } from '../../../../src/core/push/channel-client.js';
import type { GoogleQuotaGroup } from '../../../../src/core/push/google-quota.js';
import type { GooglePayload } from '../../../../src/core/push/target-payloads.js';
import type { DataSourceRead, GoogleAccountReads, QuotaRead } from '../../../../src/services/push/google-account-port.js';
import { createGoogleChannel } from '../../../../src/services/push/google-channel.js';
import { waitFor } from '../../../helpers/wait-for.js';

/** The Google channel's gate: data source check, quota reads, daily close (src/services/push/google-channel.ts). */

const NOW = Date.parse('2026-11-26T13:00:00Z');
const NAME = 'accounts/1/dataSources/2';
const silent = pino({ enabled: false });

function group(usage: number, dailyLimit = 1000, minuteLimit = 600): GoogleQuotaGroup {
  return { name: 'products', usage, dailyLimit, minuteLimit, methods: ['products/v1/productInputs.patch'] };
}

function fakeReads(sources: DataSourceRead[], quotas: QuotaRead[]) {
  const calls = { dataSource: 0, quotas: 0 };
  const reads: GoogleAccountReads = {
    async dataSource() {
      calls.dataSource += 1;
      return sources.length > 1 ? (sources.shift() as DataSourceRead) : (sources[0] as DataSourceRead);
    },
    renderedIssues: async () => ({ issues: [] }),
    async quotas() {
      calls.quotas += 1;
      return quotas.length > 1 ? (quotas.shift() as QuotaRead) : (quotas[0] as QuotaRead);
    },
    productsPage: async () => ({ problem: 'not read in this test', retry: false }),
    fileUpload: async () => ({ problem: 'not read in this test' }),
  };
  return { reads, calls };
}

function fakeClient(outcome: PushOutcome): ChannelClient<GooglePayload> & { sent: number } {
  const client = {
    channel: 'google' as const,
    sent: 0,
    async send(batch: readonly PushBatchItem<GooglePayload>[]) {
      client.sent += batch.length;
      return batch.map(({ target, gen }) => ({ target, gen, outcome }));
    },
  };
  return client;
}

/** Until `check` holds: the channel's reads answer on their own (fakes resolved at once, or after a backoff). */
async function settle(check: () => boolean): Promise<void> {
  await waitFor(check, { intervalMs: 5, message: 'the channel to get there' });
}

const item: PushBatchItem<GooglePayload> = {
  target: 'p:1',
  gen: 1,
  payload: { kind: 'product', request: { method: 'delete', name: 'accounts/1/productInputs/x' } },
};

describe('Google channel gate', () => {
  it('stays closed until the data source is known; a primary source opens it and paces at 80 % per minute', async () => {
    const { reads } = fakeReads([{ kind: 'primary' }], [{ groups: [group(10, 1000, 600)] }]);
    const channel = createGoogleChannel({
      client: fakeClient({ kind: 'ok' }),
      reads,
      dataSourceName: NAME,
      refreshMs: 60_000,
      now: () => NOW,
      logger: silent,
    });
    expect(channel.open()).toBe(false);
    channel.start();
    await settle(() => channel.status().quota !== undefined);
    expect(channel.open()).toBe(true);
    expect(channel.dataSource()).toBe('primary');
    expect(channel.status()).toEqual({ quota: { used: 10, limit: 1000, resetAt: '2026-11-27T12:00:00.000Z' } });
    // 480 calls a minute = 8 a second: a round holds 10 s of them.
    expect(channel.roundSize()).toBe(80);
    await channel.stop();
  });

  it('a source that cannot take the push keeps it closed and shows the problem naming the source', async () => {
    const problem = `data source ${NAME} is not an API data source (input FILE); nothing is pushed to Google`;
    const { reads } = fakeReads([{ problem, retry: false }], [{ groups: [] }]);
    const channel = createGoogleChannel({
      client: fakeClient({ kind: 'ok' }),
      reads,
      dataSourceName: NAME,
      refreshMs: 60_000,
      now: () => NOW,
      logger: silent,
    });
    channel.start();
    await settle(() => channel.status().lastError !== undefined);
    expect(channel.open()).toBe(false);
    expect(channel.status().lastError).toBe(problem);
    await channel.stop();
  });

  it('a network failure is read again (backoff) until the source answers', async () => {
    const { reads, calls } = fakeReads(
      [{ problem: `data source ${NAME} could not be read: ECONNREFUSED`, retry: true }, { kind: 'supplemental' }],
      [{ groups: [] }],
    );
    const channel = createGoogleChannel({
      client: fakeClient({ kind: 'ok' }),
      reads,
      dataSourceName: NAME,
      refreshMs: 60_000,
      now: () => NOW,
      logger: silent,
    });
    channel.start();
    await settle(() => channel.open());
    expect(calls.dataSource).toBe(2);
    expect(channel.dataSource()).toBe('supplemental');
    expect(channel.status().lastError).toBeUndefined();
    await channel.stop();
  }, 10_000);

  it('daily quota spent: closed until 12:00 UTC, open again at the reset time', async () => {
    let now = NOW;
    const { reads } = fakeReads([{ kind: 'primary' }], [{ groups: [group(1000)] }]);
    const channel = createGoogleChannel({
      client: fakeClient({ kind: 'ok' }),
      reads,
      dataSourceName: NAME,
      refreshMs: 60_000,
      now: () => now,
      logger: silent,
    });
    channel.start();
    await settle(() => channel.status().quota !== undefined);
    expect(channel.open()).toBe(false);
    now = Date.parse('2026-11-27T11:59:59Z');
    expect(channel.open()).toBe(false);
    now = Date.parse('2026-11-27T12:00:00Z');
    expect(channel.open()).toBe(true);
    await channel.stop();
  });

  it('a 429 with the daily limit closes the channel; the calls are answered retry, never dropped', async () => {
    const client = fakeClient({
      kind: 'retry',
      message: 'HTTP 429 RESOURCE_EXHAUSTED: quota/daily_limit_exceeded (daily limit)',
    });
    const { reads } = fakeReads([{ kind: 'primary' }], [{ groups: [group(5)] }]);
    const channel = createGoogleChannel({
      client,
      reads,
      dataSourceName: NAME,
      refreshMs: 60_000,
      now: Date.now,
      logger: silent,
    });
    channel.start();
    await settle(() => channel.open());
    const outcomes = await channel.client.send([item, { ...item, target: 'p:2' }]);
    // A real clock: the pacer refills with time (it starts with a one-call burst).
    expect(outcomes.map((outcome) => outcome.outcome.kind)).toEqual(['retry', 'retry']);
    expect(client.sent).toBe(2);
    expect(channel.open()).toBe(false);
    await channel.stop();
  });

  it('after a daily 429, a quota read that shows quota left opens the channel again before 12:00 UTC', async () => {
    const client = fakeClient({ kind: 'retry', message: 'HTTP 429 RESOURCE_EXHAUSTED: Quota exceeded: requests per day' });
    const { reads, calls } = fakeReads([{ kind: 'primary' }], [{ groups: [group(5)] }]);
    const channel = createGoogleChannel({
      client,
      reads,
      dataSourceName: NAME,
      refreshMs: 20,
      now: Date.now,
      logger: silent,
    });
    channel.start();
    await settle(() => channel.open());
    await channel.client.send([item]);
    expect(channel.open()).toBe(false);
    const readsBefore = calls.quotas;
    // The next quota read says 5 of 1,000 used: Google's count is what decides, not a wait until noon.
    await settle(() => calls.quotas > readsBefore && channel.open());
    expect(channel.open()).toBe(true);
    await channel.stop();
  });

  it('a follower reads nothing from Google; on taking the lead it reads the quotas before its first send', async () => {
    let leader = false;
    const { reads, calls } = fakeReads([{ kind: 'primary' }], [{ groups: [group(10)] }]);
    const channel = createGoogleChannel({
      client: fakeClient({ kind: 'ok' }),
      reads,
      dataSourceName: NAME,
      refreshMs: 5,
      now: () => NOW,
      logger: silent,
      isLeader: () => leader,
    });
    // Fake timers run the refresh ticks: the follower's ten are counted, not slept.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      channel.start();
      // Several refresh ticks pass as a follower: no data source read, no quota read, never open.
      for (let i = 0; i < 10; i++) {
        expect(channel.open()).toBe(false);
        await vi.advanceTimersByTimeAsync(5);
      }
    } finally {
      vi.useRealTimers();
    }
    expect(calls).toEqual({ dataSource: 0, quotas: 0 });
    leader = true;
    // The first look as leader starts the reads; it stays closed until they are answered.
    expect(channel.open()).toBe(false);
    await settle(() => channel.open());
    expect(channel.open()).toBe(true);
    expect(calls.dataSource).toBe(1);
    expect(calls.quotas).toBeGreaterThanOrEqual(1);
    expect(channel.quota()).toEqual({ used: 10, limit: 1000 });
    // Losing the lead closes it; taking it again reads the quotas again before sending.
    leader = false;
    expect(channel.open()).toBe(false);
    const before = calls.quotas;
    leader = true;
    expect(channel.open()).toBe(false);
    await settle(() => calls.quotas > before);
    expect(calls.quotas).toBe(before + 1);
    await channel.stop();
  });
});
