/**
 * A Meta batch handle's state as the bridge acts on it (docs/decisions/0013-channel-push.md, "Meta
 * `items_batch`", "Status"): read from `GET /{catalog_id}/check_batch_request_status` (Meta's guide
 * "Get Batch Request Status": statuses scheduled, dispatched, started, finished, canceled, error). Types
 * only: the client is `src/adapters/push/meta-client.ts`, the checks `src/services/push/meta-batch-checks.ts`.
 */
export type MetaBatchStatus =
  /** scheduled, dispatched, started: ask again later. */
  | { readonly kind: 'pending'; readonly status: string }
  /**
   * Ingested; the retailer ids Meta found invalid (to re-enqueue once, then reject) and, where Meta said why,
   * its message per id (`errors[].id`/`message`).
   */
  | {
      readonly kind: 'finished';
      readonly invalidIds: readonly string[];
      readonly messages?: Readonly<Record<string, string>>;
    }
  /** error or canceled: the whole batch's targets are re-enqueued. */
  | { readonly kind: 'failed'; readonly status: string }
  /** The check itself failed (network, 429, 5xx, refused token, unreadable answer): ask again later. */
  | { readonly kind: 'retry'; readonly afterMs?: number; readonly message: string };
