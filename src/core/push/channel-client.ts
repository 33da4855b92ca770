/**
 * The port every channel client implements (docs/decisions/0013-channel-push.md, "4. Delivery"): the worker
 * claims due targets, builds their payloads (`payloads/*.ts`), sends one batch and then acks, retries or
 * rejects each target by the outcome it gets back. Types only: clients live in `src/adapters/push/`.
 */

import type { PushChannel, PushErrorCause } from './push-channel.js';

/**
 * What one change asks a channel to do for a target. `fields` name what changed, so a Google patch can carry
 * an update mask of those only; the values themselves are always read from the version served at send time.
 */
export type PushAction =
  | { readonly kind: 'create' }
  | { readonly kind: 'update'; readonly fields: readonly PushField[] }
  | { readonly kind: 'remove' };

export type PushField = 'price' | 'salePrice' | 'availability' | 'stock';

/** The outcome of one target's request: the worker maps it to `ack`, `retry` or `reject` on the outbox. */
export type PushOutcome =
  | { readonly kind: 'ok' }
  /** 429, 5xx, 423, timeouts, network: sent again later; `afterMs` from `Retry-After` when the channel gave one. */
  | { readonly kind: 'retry'; readonly afterMs?: number; readonly message?: string; readonly cause?: PushErrorCause }
  /** A 4xx a repeat cannot fix (Shoptet `unknown-product`, Google `INVALID_ARGUMENT`): dropped, reported. */
  | { readonly kind: 'rejected'; readonly message: string; readonly cause?: PushErrorCause };

/** One claimed target with the payload built for it. `gen` is the outbox row's, echoed back for `ack`. */
export interface PushBatchItem<Payload> {
  /** The outbox target key: `p:{id}`, `l:{id}:{unit}`, `s:{code}` or `m:{id}`. */
  readonly target: string;
  readonly gen: number;
  readonly payload: Payload;
}

export interface PushTargetOutcome {
  readonly target: string;
  readonly gen: number;
  readonly outcome: PushOutcome;
}

/**
 * A channel client. `send` answers one outcome per batch item (a whole-request failure gives every item the
 * same outcome) and never throws for a channel's answer: only a programming error may reject.
 */
export interface ChannelClient<Payload> {
  readonly channel: PushChannel;
  send(batch: readonly PushBatchItem<Payload>[]): Promise<readonly PushTargetOutcome[]>;
}

/** A payload builder's answer: the request part to send, or why this target sends nothing (counted `skipped`). */
export type PayloadResult<Payload> =
  | { readonly kind: 'send'; readonly payload: Payload }
  | { readonly kind: 'skip'; readonly reason: string };
