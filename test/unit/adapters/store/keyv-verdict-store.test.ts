import { Keyv } from 'keyv';
import { describe, expect, it } from 'vitest';
import { createKeyvVerdictStore } from '../../../../src/adapters/store/keyv-verdict-store.js';
import { createVerdictBuckets, createVerdictTally } from '../../../../src/core/push/channel-verdicts.js';
import type { GoogleVerdict } from '../../../../src/core/push/google-product-status.js';

function verdict(offerId: string, status: GoogleVerdict['status'] = 'approved'): GoogleVerdict {
  return { offerId, status, destinations: [], issues: [] };
}

async function bucketsOf(verdicts: readonly GoogleVerdict[]) {
  const read = createVerdictBuckets();
  for (const entry of verdicts) read.add(entry);
  return read.group();
}

function summaryOf(verdicts: readonly GoogleVerdict[], readAt: string) {
  const tally = createVerdictTally();
  for (const entry of verdicts) tally.add(entry);
  return tally.summary(readAt, { count: 0 });
}

describe("a channel's verdicts in the store", () => {
  it('replaces a read with the next whole, and removes the buckets of the read before', async () => {
    const map = new Map<string, unknown>();
    const keyv = new Keyv({ store: map });
    const store = createKeyvVerdictStore(keyv, { channel: 'google', account: '123' });
    const first = Array.from({ length: 600 }, (_, index) => verdict(`p${index}`, index === 7 ? 'disapproved' : 'approved'));
    await store.publish(await bucketsOf(first), summaryOf(first, '2026-11-29T10:00:00.000Z'));
    expect((await store.verdict('p7'))?.status).toBe('disapproved');
    expect((await store.summary())?.counts).toEqual({ approved: 599, pending: 0, disapproved: 1 });

    const second = first.map((entry) => verdict(entry.offerId));
    await store.publish(await bucketsOf(second), summaryOf(second, '2026-11-29T10:30:00.000Z'));
    // A new store (another instance) reads the new generation; the old one's buckets are gone.
    const other = createKeyvVerdictStore(keyv, { channel: 'google', account: '123' });
    expect((await other.verdict('p7'))?.status).toBe('approved');
    expect(await other.verdict('nope')).toBeUndefined();
    const generations = new Set(
      [...map.keys()].filter((key) => !key.endsWith('verdicts:google:meta')).map((key) => key.split(':').at(-2)),
    );
    expect(generations.size).toBe(1);
  });

  it('notes a failed read beside the verdicts it keeps; the next read clears it', async () => {
    const store = createKeyvVerdictStore(new Keyv(), { channel: 'google', account: '123' });
    await store.noteFailure({ at: '2026-11-29T09:00:00.000Z', message: 'HTTP 503' });
    expect(await store.summary()).toMatchObject({
      counts: { approved: 0, pending: 0, disapproved: 0 },
      lastError: { message: 'HTTP 503' },
    });
    expect(await store.verdict('p1')).toBeUndefined();
    const read = [verdict('p1', 'pending')];
    await store.publish(await bucketsOf(read), summaryOf(read, '2026-11-29T10:00:00.000Z'));
    await store.noteFailure({ at: '2026-11-29T10:30:00.000Z', message: 'HTTP 500' });
    expect((await store.verdict('p1'))?.status).toBe('pending');
    expect((await store.summary())?.lastError?.message).toBe('HTTP 500');
    await store.publish(await bucketsOf(read), summaryOf(read, '2026-11-29T11:00:00.000Z'));
    expect((await store.summary())?.lastError).toBeUndefined();
  });

  it("never shows another account's verdicts", async () => {
    const keyv = new Keyv();
    const read = [verdict('p1', 'disapproved')];
    await createKeyvVerdictStore(keyv, { channel: 'google', account: '123' }).publish(
      await bucketsOf(read),
      summaryOf(read, 'x'),
    );
    const other = createKeyvVerdictStore(keyv, { channel: 'google', account: '999' });
    expect(await other.verdict('p1')).toBeUndefined();
    expect(await other.summary()).toBeUndefined();
  });
});
