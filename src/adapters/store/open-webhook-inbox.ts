import type { WebhookInbox } from '../../services/webhooks/webhook-inbox.js';
import { besideStore, sqliteStorePath } from './beside-store.js';
import { openKeyv } from './create-keyv.js';
import { createKeyvWebhookInbox } from './keyv-webhook-inbox.js';
import { openSqliteWebhookInbox } from './sqlite-webhook-inbox.js';

/**
 * Where the webhook inbox lives for a `STORE_URL`: with SQLite, a file of its own beside the catalog's
 * (`catalog.sqlite` → `catalog.inbox.sqlite`). Its writes are synced to disk before each `200`, and in
 * the catalog's file each such sync would also flush the catalog's large unsynced writes from the shared
 * WAL. Redis and memory stores are shared as they are.
 */
export function inboxStoreUrl(storeUrl: string): string {
  if (!storeUrl.startsWith('sqlite://')) return storeUrl;
  return besideStore(storeUrl, 'inbox', { sqlite: true });
}

/**
 * The webhook inbox for a `STORE_URL`: with SQLite, SQLite's own statements in a file of its own
 * (group-committed accepts, `sqlite-webhook-inbox.ts`); otherwise keyvs of its own (namespaces), so that
 * listing pending events never reads the catalog. It accepts and lists the events of `source` only.
 */
export function openWebhookInbox<Event>(storeUrl: string, source: string): WebhookInbox<Event> {
  const url = inboxStoreUrl(storeUrl);
  const path = sqliteStorePath(url);
  if (path !== undefined) return openSqliteWebhookInbox<Event>(path, { source });
  const { keyv } = openKeyv(url, 'catalog-bridge-inbox');
  const seen = openKeyv(url, 'catalog-bridge-seen').keyv;
  return createKeyvWebhookInbox<Event>(keyv, { seen, source });
}
