import { Gauge, type Registry } from 'prom-client';

/** The webhook inbox shared by several instances on Redis. */
export interface InboxMetrics {
  readonly inboxDepth: Gauge;
  readonly inboxPending: Gauge;
  readonly inboxClaims: Gauge;
}

export function createInboxMetrics(registers: Registry[]): InboxMetrics {
  return {
    inboxDepth: new Gauge({
      name: 'catalog_bridge_webhook_inbox_depth',
      help: 'Webhook events in the shared inbox (accepted and not yet completed by any instance)',
      registers,
    }),
    inboxPending: new Gauge({
      name: 'catalog_bridge_webhook_inbox_pending',
      help: 'Of the shared inbox, events handed to an instance and not yet completed',
      registers,
    }),
    inboxClaims: new Gauge({
      name: 'catalog_bridge_webhook_inbox_claims',
      help: 'Webhook events this instance took over from other instances (they did not complete them in time)',
      registers,
    }),
  };
}
