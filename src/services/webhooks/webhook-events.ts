import type { PosWebhookEvent } from '../../core/catalog/pos-records.js';

/** Events the inbox keeps: the known kinds (unknown kinds are answered and dropped by the route). */
export type StoredWebhookEvent = Exclude<PosWebhookEvent, { kind: 'unknown' }>;

/**
 * What the bridge deduplicates on: the receipt (its `localId`, else number and time) for a sale; the
 * receipt and client for a points change. The same sale delivered twice has the same key.
 */
export function dedupeKeyOf(event: StoredWebhookEvent): string {
  if (event.kind === 'sale') {
    const receipt = event.data.localId ?? `${event.unitId ?? ''}|${event.data.number ?? ''}|${event.timestamp}`;
    return `sale|${receipt}`;
  }
  const receipt = event.data.receipt?.localId ?? `${event.data.receipt?.number ?? ''}|${event.timestamp}`;
  return `points|${receipt}|${event.data.client?.localId ?? ''}`;
}
