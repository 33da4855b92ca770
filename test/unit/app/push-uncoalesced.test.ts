import { describe, expect, it } from 'vitest';
import { createMemoryPushOutbox } from '../../../src/adapters/push/memory-push-outbox.js';
import { pushOutboxPath } from '../../../src/app/push-parts.js';
import { coalescedTarget, uncoalescedOutbox, uncoalescedPayloads } from '../../../src/app/push-uncoalesced.js';
import { PUSH_MASK } from '../../../src/core/push/outbox.js';

/** The bench-only switch that turns coalescing off (bench/channel-push.ts), and the SQLite outbox's own file. */

const update = (target: string, atMs = 0) => ({ channel: 'shoptet' as const, target, mask: PUSH_MASK.STOCK, atMs });

describe('uncoalesced push outbox', () => {
  it('merges changes of one target while coalescing, and claims a whole batch', async () => {
    const outbox = uncoalescedOutbox(createMemoryPushOutbox(), () => true);
    await outbox.enqueue(undefined, 'v1', [update('s:A'), update('s:B')]);
    await outbox.enqueue('v1', 'v2', [update('s:A')]);
    expect((await outbox.stats('shoptet')).pending).toBe(2);
    expect(await outbox.claim('shoptet', 0, 10, 1_000)).toHaveLength(2);
  });

  it('keeps each change as its own row and claims one row at a time when switched off', async () => {
    let coalesce = true;
    const outbox = uncoalescedOutbox(createMemoryPushOutbox(), () => coalesce);
    coalesce = false;
    await outbox.enqueue(undefined, 'v1', [update('s:A'), update('s:B')]);
    await outbox.enqueue('v1', 'v2', [update('s:A')]);
    expect((await outbox.stats('shoptet')).pending).toBe(3);
    const [row, ...more] = await outbox.claim('shoptet', 0, 10, 1_000);
    expect(more).toHaveLength(0);
    expect(row === undefined ? undefined : coalescedTarget(row.target)).toMatch(/^s:[AB]$/);
    // The row's own target (suffix and all) is what the worker acks.
    expect(row === undefined ? false : await outbox.ack('shoptet', row.target, row.gen)).toBe(true);
    expect((await outbox.stats('shoptet')).pending).toBe(2);
  });

  it('builds the payload from the target the channel knows', () => {
    const build = uncoalescedPayloads((row) => ({ kind: 'send' as const, payload: row.target }));
    expect(build({ target: 's:43/BIL~#7', mask: PUSH_MASK.STOCK }, undefined)).toEqual({ kind: 'send', payload: 's:43/BIL' });
    expect(coalescedTarget('m:a-100~1')).toBe('m:a-100~1');
  });
});

describe('SQLite push outbox file', () => {
  it('is a file of its own beside the store (never the store file itself)', () => {
    expect(pushOutboxPath('/data/catalog.sqlite')).toBe('/data/catalog.push.sqlite');
    expect(pushOutboxPath('/var/lib/bridge/store.db')).toBe('/var/lib/bridge/store.db.push');
  });
});
