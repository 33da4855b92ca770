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
      [...map.keys()].filter((key) => !/verdicts:google:(meta|pointer)$/.test(key)).map((key) => key.split(':').at(-2)),
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

  it('sweeps the buckets of a first publish stopped half-way, and of another account before it', async () => {
    const map = new Map<string, unknown>();
    const keyv = new Keyv({ store: map });
    const read = [verdict('p1')];
    // Stopped after its buckets: no pointer names them, only the writing mark does.
    const stopped = createKeyvVerdictStore(keyv, { channel: 'google', account: '999' });
    const failing = new Keyv({ store: map });
    let sets = 0;
    const original = failing.set.bind(failing);
    failing.set = (async (key: string, value: unknown) => {
      sets += 1;
      if (String(key).endsWith(':meta')) throw new Error('stopped');
      return original(key, value);
    }) as typeof failing.set;
    await expect(
      createKeyvVerdictStore(failing, { channel: 'google', account: '999' }).publish(await bucketsOf(read), summaryOf(read, 'x')),
    ).rejects.toThrow('stopped');
    expect(sets).toBeGreaterThan(1);
    expect(await stopped.verdict('p1')).toBeUndefined();
    await createKeyvVerdictStore(keyv, { channel: 'google', account: '123' }).publish(
      await bucketsOf(read),
      summaryOf(read, 'y'),
    );
    const generations = new Set(
      [...map.keys()].filter((key) => /verdicts:google:[0-9a-f]+:\d+$/.test(key)).map((key) => key.split(':').at(-2)),
    );
    expect(generations.size).toBe(1);
    expect(map.has('verdicts:google:writing')).toBe(false);
  });

  it('reads a store written before the pointer, and reads no summary for a product without issues', async () => {
    const map = new Map<string, unknown>();
    const keyv = new Keyv({ store: map });
    const read = [verdict('p1'), verdict('p2', 'disapproved')];
    await createKeyvVerdictStore(keyv, { channel: 'google', account: '123' }).publish(
      await bucketsOf(read),
      summaryOf(read, 'x'),
    );
    const pointer = (await keyv.get('verdicts:google:pointer')) as { generation: string; buckets: number };
    const meta = (await keyv.get('verdicts:google:meta')) as Record<string, unknown>;
    await keyv.set('verdicts:google:meta', { ...meta, buckets: pointer.buckets });
    await keyv.delete('verdicts:google:pointer');
    const older = createKeyvVerdictStore(keyv, { channel: 'google', account: '123' });
    expect((await older.verdict('p2'))?.status).toBe('disapproved');
    await older.publish(await bucketsOf(read), summaryOf(read, 'y'));

    const reads: string[] = [];
    const counting = new Keyv({ store: map });
    const get = counting.get.bind(counting);
    counting.get = (async (key: string) => {
      reads.push(String(key));
      return get(key);
    }) as typeof counting.get;
    await createKeyvVerdictStore(counting, { channel: 'google', account: '123' }).verdict('p1');
    expect(reads.filter((key) => key.endsWith(':meta'))).toEqual([]);
  });
});
