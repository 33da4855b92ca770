import type { ChannelClient, PushBatchItem, PushTargetOutcome } from '../../core/push/channel-client.js';
import type { PushChannel } from '../../core/push/push-channel.js';

/**
 * The channel client of PUSH_DRY_RUN (docs/decisions/0013-channel-push.md, "Dry run"): sends nothing, logs what
 * would be sent at info and answers `ok`, so rows are acked and the counters move. Only payloads are logged,
 * never headers or credentials (payloads carry none).
 */

export interface DryRunLogger {
  info(meta: object, message: string): void;
}

export interface DryRunTarget {
  /** What the real client would call, e.g. `PATCH` and `/api/stocks/{stockId}/movements`. */
  readonly method: string;
  readonly path: string;
}

/** Items shown in full in each log line. */
export const DRY_RUN_SAMPLE = 3;

export function createDryRunClient<Payload>(
  channel: PushChannel,
  target: DryRunTarget,
  logger: DryRunLogger,
): ChannelClient<Payload> {
  return {
    channel,
    async send(batch: readonly PushBatchItem<Payload>[]): Promise<readonly PushTargetOutcome[]> {
      const payloads = batch.map((item) => item.payload);
      logger.info(
        {
          channel,
          method: target.method,
          path: target.path,
          items: batch.length,
          bytes: Buffer.byteLength(JSON.stringify(payloads)),
          sample: payloads.slice(0, DRY_RUN_SAMPLE),
        },
        'push dry run: not sent',
      );
      return batch.map(({ target: key, gen }) => ({ target: key, gen, outcome: { kind: 'ok' } }));
    },
  };
}
