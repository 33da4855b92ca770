import type { PushChannelState, PushOutbox } from '../../core/push/outbox.js';
import type { PushChannel, PushErrorCause } from '../../core/push/push-channel.js';

/**
 * The worker's last success and last error, kept in the outbox state (docs/decisions/0013-channel-push.md,
 * section 6) so they survive a restart and read the same on every instance. Written at most once per
 * `intervalMs` per channel: a busy channel settles several batches a second, and each write is a store
 * round trip; what is not written yet is laid over the stored state when the status is read, and written
 * by the next round or at stop.
 */

/** How often at most the state is written (per channel). */
export const PUSH_STATE_WRITE_MS = 1_000;

/** What one settled batch says about the channel. */
export interface BatchResult {
  /** Whether the channel accepted at least one item. */
  readonly delivered: boolean;
  /** The last error of the batch (a retry or a rejection), its message already cut. */
  readonly error?: { readonly message: string; readonly cause?: PushErrorCause };
  /** The last item refused for good, with the channel's message. */
  readonly rejected?: string;
  /** Whether an item is to be sent again (the channel is failing, not only refusing items). */
  readonly retrying: boolean;
}

/** How `failingSince` changes when the unwritten results are written. */
type Failing =
  | { readonly kind: 'keep' }
  | { readonly kind: 'clear' }
  /** Failing since `at`, or since the stored time when the stored state already fails (`orStored`). */
  | { readonly kind: 'since'; readonly at: string; readonly orStored: boolean };

export interface PushStateRecorder {
  /** Notes a settled batch at `now` (ms); written by `flushIfDue` or `flush`. */
  note(result: BatchResult, now: number): void;
  /** Writes what is noted when the last write is at least `intervalMs` old. */
  flushIfDue(now: number): Promise<void>;
  /** Writes what is noted now (at stop). */
  flush(): Promise<void>;
  /** The stored state with what is noted but not written yet laid over it. */
  view(): Promise<PushChannelState>;
}

type Patch = {
  -readonly [K in keyof Omit<PushChannelState, 'failingSince' | 'quota' | 'lastReconcile'>]?: PushChannelState[K];
};

function apply(stored: PushChannelState, patch: Patch, failing: Failing, clearKind: boolean): PushChannelState {
  const { failingSince: storedFailing, lastErrorKind: storedKind, ...rest } = stored;
  const next: PushChannelState = { ...rest, ...patch };
  const kind = patch.lastErrorKind ?? (clearKind ? undefined : storedKind);
  const since =
    failing.kind === 'keep'
      ? storedFailing
      : failing.kind === 'clear'
        ? undefined
        : failing.orStored
          ? (storedFailing ?? failing.at)
          : failing.at;
  return {
    ...next,
    ...(kind === undefined ? {} : { lastErrorKind: kind }),
    ...(since === undefined ? {} : { failingSince: since }),
  };
}

/** The state fields the recorder writes. */
const RECORDED = [
  'lastSuccessAt',
  'lastErrorAt',
  'lastError',
  'lastErrorKind',
  'failingSince',
  'lastRejectedAt',
  'lastRejected',
] as const satisfies readonly (keyof PushChannelState)[];

export function createPushStateRecorder(
  outbox: Pick<PushOutbox, 'state' | 'patchState'>,
  channel: PushChannel,
  intervalMs: number = PUSH_STATE_WRITE_MS,
): PushStateRecorder {
  let patch: Patch = {};
  let failing: Failing = { kind: 'keep' };
  // A newer error without a cause must not keep an older error's cause.
  let clearKind = false;
  let dirty = false;
  let lastWriteMs = Number.NEGATIVE_INFINITY;

  async function flush(now?: number): Promise<void> {
    if (!dirty) return;
    const written = { patch, failing, clearKind };
    const stored = await outbox.state(channel);
    const next = apply(stored, written.patch, written.failing, written.clearKind);
    // Only the recorder's own fields: the quota and the last reconciliation have writers of their own.
    await outbox.patchState(channel, Object.fromEntries(RECORDED.map((field) => [field, next[field] ?? null])));
    // Only what was written is forgotten: a batch noted during the write stays for the next one.
    if (patch === written.patch) {
      patch = {};
      failing = { kind: 'keep' };
      clearKind = false;
      dirty = false;
    }
    lastWriteMs = now ?? lastWriteMs;
  }

  return {
    note(result, now) {
      const at = new Date(now).toISOString();
      const next: Patch = { ...patch };
      if (result.delivered) next.lastSuccessAt = at;
      if (result.error !== undefined) {
        next.lastErrorAt = at;
        next.lastError = result.error.message;
        if (result.error.cause === undefined) {
          delete next.lastErrorKind;
          clearKind = true;
        } else {
          next.lastErrorKind = result.error.cause;
        }
      }
      if (result.rejected !== undefined) {
        next.lastRejectedAt = at;
        next.lastRejected = result.rejected;
      }
      if (result.retrying) {
        if (failing.kind === 'clear') failing = { kind: 'since', at, orStored: false };
        else if (failing.kind === 'keep') failing = { kind: 'since', at, orStored: true };
      } else if (result.delivered) {
        failing = { kind: 'clear' };
      }
      patch = next;
      dirty = true;
    },
    async flushIfDue(now) {
      if (dirty && now - lastWriteMs >= intervalMs) await flush(now);
    },
    flush: () => flush(),
    async view() {
      const stored = await outbox.state(channel);
      return dirty ? apply(stored, patch, failing, clearKind) : stored;
    },
  };
}
