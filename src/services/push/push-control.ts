import type { PushConfig } from '../../config/load-config.js';
import type { PushOutbox } from '../../core/push/outbox.js';
import { PUSH_CHANNELS, type PushChannel } from '../../core/push/push-channel.js';
import type { ServiceLogger as Logger } from '../logging/service-logger.js';
import type { PushReconciler, ReconcileOutcome } from './push-reconciler.js';

/**
 * The operator's controls of the push (docs/decisions/0013-channel-push.md, section 4 "Kill switch", "Dry
 * run", and section 5; docs/channel-push.md): pause and resume per channel, kept in the outbox (so across
 * restarts and for the whole group), a reconciliation now, and what a start does with PUSH_PAUSED and the
 * mode the channel last ran in. The admin routes call these through the push wiring.
 */

export type PushControlReason =
  | 'unknown-channel'
  | 'paused-by-config'
  | 'stopped'
  | Extract<ReconcileOutcome, { ok: false }>['reason'];

export interface PushControlRefusal {
  readonly ok: false;
  readonly reason: PushControlReason;
  /** For the operator: names the channel or the setting. */
  readonly message: string;
}

export type PushPauseResult = { readonly ok: true; readonly channel: PushChannel; readonly paused: boolean } | PushControlRefusal;

export type PushReconcileResult =
  | {
      readonly ok: true;
      readonly version: string;
      /** Targets enqueued per channel. */
      readonly targets: Partial<Record<PushChannel, number>>;
    }
  | PushControlRefusal;

export interface PushControl {
  pause(channel: string): Promise<PushPauseResult>;
  resume(channel: string): Promise<PushPauseResult>;
  /** Every configured channel when `channel` is undefined. */
  reconcile(channel: string | undefined, why: string): Promise<PushReconcileResult>;
}

const REASON_MESSAGES: Record<Extract<ReconcileOutcome, { ok: false }>['reason'], string> = {
  'no-catalog': 'No catalog is served yet; the reconciliation needs one (try again after the first sync)',
  'not-leader': 'Only the group leader pushes; ask the leader (or try again after a failover)',
  'no-cursor': 'Nothing has been derived yet; the first derivation sends every target in full anyway',
  fenced: 'This instance lost the group lease while enqueueing; the new leader pushes',
  'stale-cursor': 'The outbox kept changing while enqueueing; try again',
};

export function createPushControl(parts: {
  readonly outbox: Pick<PushOutbox, 'paused' | 'setPaused' | 'state' | 'patchState'>;
  readonly channels: readonly PushChannel[];
  readonly push: Pick<PushConfig, 'paused'>;
  readonly reconciler: PushReconciler;
  readonly stopped: () => boolean;
  /**
   * Told after a pause, resume or reconciliation (the workers wake, the status board refreshes), and awaited:
   * `/readyz` and the page show the change once the request is answered.
   */
  readonly changed: () => Promise<void>;
  readonly log: Logger;
}): PushControl {
  const { outbox, push, log } = parts;

  const configured = (name: string): PushChannel | PushControlRefusal => {
    const channel = parts.channels.find((candidate) => candidate === name);
    if (channel !== undefined) return channel;
    const known = (PUSH_CHANNELS as readonly string[]).includes(name);
    return {
      ok: false,
      reason: 'unknown-channel',
      message: known
        ? `The channel ${name} is not configured (configured: ${parts.channels.join(', ')})`
        : `There is no channel ${JSON.stringify(name)} (configured: ${parts.channels.join(', ')})`,
    };
  };
  const stoppedRefusal: PushControlRefusal = { ok: false, reason: 'stopped', message: 'The push is stopping' };

  const setPaused = async (name: string, paused: boolean): Promise<PushPauseResult> => {
    const channel = configured(name);
    if (typeof channel !== 'string') return channel;
    if (parts.stopped()) return stoppedRefusal;
    if (!paused && push.paused.includes(channel)) {
      return {
        ok: false,
        reason: 'paused-by-config',
        message: `The channel ${channel} is paused by the setting PUSH_PAUSED; remove it from there and restart to resume`,
      };
    }
    await outbox.setPaused(channel, paused);
    await outbox.patchState(channel, { pausedBy: paused ? 'operator' : null });
    log.info({ channel }, paused ? 'push: paused by the operator' : 'push: resumed by the operator');
    await parts.changed();
    return { ok: true, channel, paused };
  };

  return {
    pause: (channel) => setPaused(channel, true),
    resume: (channel) => setPaused(channel, false),
    async reconcile(name, why) {
      let channels: readonly PushChannel[] = parts.channels;
      if (name !== undefined) {
        const channel = configured(name);
        if (typeof channel !== 'string') return channel;
        channels = [channel];
      }
      if (parts.stopped()) return stoppedRefusal;
      const outcome = await parts.reconciler.reconcile(channels, why);
      if (!outcome.ok) return { ok: false, reason: outcome.reason, message: REASON_MESSAGES[outcome.reason] };
      await parts.changed();
      return outcome;
    },
  };
}

/**
 * PUSH_PAUSED at a start: a channel named there is paused (by the configuration); one no longer named that
 * the configuration had paused is resumed; one the operator paused through the admin endpoint stays paused.
 */
export async function applyPausedSetting(
  outbox: Pick<PushOutbox, 'paused' | 'setPaused' | 'state' | 'patchState'>,
  channels: readonly PushChannel[],
  paused: readonly PushChannel[],
  log: Logger,
): Promise<void> {
  for (const channel of channels) {
    const state = await outbox.state(channel);
    if (paused.includes(channel)) {
      await outbox.setPaused(channel, true);
      await outbox.patchState(channel, { pausedBy: 'config' });
    } else if (state.pausedBy === 'config') {
      await outbox.setPaused(channel, false);
      await outbox.patchState(channel, { pausedBy: null });
      log.info({ channel }, 'push: resumed, PUSH_PAUSED no longer names the channel');
    } else if (await outbox.paused(channel)) {
      log.warn({ channel }, 'push: still paused by the operator (POST /admin/push/{channel}/resume resumes it)');
    }
  }
}

/**
 * Stores the mode each channel starts in and answers the channels that last ran in dry run and now start
 * live: what the dry run "sent" never reached them, so they are reconciled.
 */
export async function rememberMode(
  outbox: Pick<PushOutbox, 'state' | 'patchState'>,
  channels: readonly PushChannel[],
  dryRun: boolean,
): Promise<PushChannel[]> {
  const mode = dryRun ? 'dry-run' : 'live';
  const toReconcile: PushChannel[] = [];
  for (const channel of channels) {
    const state = await outbox.state(channel);
    // Stored as live only once its reconciliation is enqueued (`storeMode`): a crash before reconciles again.
    if (state.lastMode === 'dry-run' && mode === 'live') toReconcile.push(channel);
    else if (state.lastMode !== mode) await outbox.patchState(channel, { lastMode: mode });
  }
  return toReconcile;
}

export async function storeMode(
  outbox: Pick<PushOutbox, 'state' | 'patchState'>,
  channel: PushChannel,
  mode: 'live' | 'dry-run',
): Promise<void> {
  await outbox.patchState(channel, { lastMode: mode });
}
