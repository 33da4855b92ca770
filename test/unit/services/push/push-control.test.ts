import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMemoryPushOutbox } from '../../../../src/adapters/push/memory-push-outbox.js';
import { applyPausedSetting, createPushControl, rememberMode, storeMode } from '../../../../src/services/push/push-control.js';

/** The operator's controls (src/services/push/push-control.ts, docs/channel-push.md#operator-controls). */

const log = pino({ level: 'silent' });

function controlOn(outbox = createMemoryPushOutbox(), paused: readonly ('meta' | 'shoptet')[] = []) {
  const reconciled: string[][] = [];
  const control = createPushControl({
    outbox,
    channels: ['shoptet', 'meta'],
    push: { paused },
    reconciler: {
      reconcile: async (channels) => {
        reconciled.push([...channels]);
        return { ok: true, version: 'v1', targets: { meta: 1 } };
      },
    },
    stopped: () => false,
    changed: async () => undefined,
    log,
  });
  return { control, outbox, reconciled };
}

describe('push control', () => {
  it('pauses and resumes a configured channel in the outbox, refusing unknown and unconfigured ones', async () => {
    const { control, outbox } = controlOn();
    expect(await control.pause('meta')).toEqual({ ok: true, channel: 'meta', paused: true });
    expect(await outbox.paused('meta')).toBe(true);
    expect((await outbox.state('meta')).pausedBy).toBe('operator');
    expect(await control.resume('meta')).toEqual({ ok: true, channel: 'meta', paused: false });
    expect(await outbox.paused('meta')).toBe(false);
    expect(await control.pause('google')).toMatchObject({
      ok: false,
      reason: 'unknown-channel',
      message: expect.stringContaining('google is not configured'),
    });
    expect(await control.pause('x')).toMatchObject({
      ok: false,
      reason: 'unknown-channel',
      message: expect.stringContaining('"x"'),
    });
  });

  it('refuses to resume a channel PUSH_PAUSED names', async () => {
    const { control } = controlOn(createMemoryPushOutbox(), ['meta']);
    expect(await control.resume('meta')).toMatchObject({
      ok: false,
      reason: 'paused-by-config',
      message: expect.stringContaining('PUSH_PAUSED'),
    });
  });

  it('reconciles every configured channel, or the one asked for', async () => {
    const { control, reconciled } = controlOn();
    expect(await control.reconcile(undefined, 'test')).toMatchObject({ ok: true });
    expect(await control.reconcile('meta', 'test')).toMatchObject({ ok: true });
    expect(await control.reconcile('google', 'test')).toMatchObject({ ok: false, reason: 'unknown-channel' });
    expect(reconciled).toEqual([['shoptet', 'meta'], ['meta']]);
  });

  it('at a start: PUSH_PAUSED pauses, lifts only its own pause, keeps the operator pause', async () => {
    const outbox = createMemoryPushOutbox();
    await applyPausedSetting(outbox, ['shoptet', 'meta'], ['meta'], log);
    expect(await outbox.paused('meta')).toBe(true);
    await controlOn(outbox).control.pause('shoptet');
    // The next start no longer names meta: the setting's pause ends, the operator's stays.
    await applyPausedSetting(outbox, ['shoptet', 'meta'], [], log);
    expect(await outbox.paused('meta')).toBe(false);
    expect(await outbox.paused('shoptet')).toBe(true);
  });

  it('remembers the mode, answering the channels that start live after a dry run until stored live', async () => {
    const outbox = createMemoryPushOutbox();
    expect(await rememberMode(outbox, ['meta'], true)).toEqual([]);
    expect((await outbox.state('meta')).lastMode).toBe('dry-run');
    expect(await rememberMode(outbox, ['meta'], false)).toEqual(['meta']);
    // Not yet stored live: a crash before the reconciliation is enqueued reconciles at the next start.
    expect(await rememberMode(outbox, ['meta'], false)).toEqual(['meta']);
    await storeMode(outbox, 'meta', 'live');
    expect(await rememberMode(outbox, ['meta'], false)).toEqual([]);
  });
});
