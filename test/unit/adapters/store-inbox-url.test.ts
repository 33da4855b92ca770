import { describe, expect, it } from 'vitest';
import { inboxStoreUrl } from '../../../src/adapters/store/open-webhook-inbox.js';

describe('wiring', () => {
  it('puts the SQLite webhook inbox in a file of its own beside the catalog, and shares other stores', () => {
    expect(inboxStoreUrl('sqlite://data/catalog.sqlite')).toBe('sqlite://data/catalog.inbox.sqlite');
    expect(inboxStoreUrl('sqlite:///var/lib/bridge/store.db')).toBe('sqlite:///var/lib/bridge/store.db.inbox');
    expect(inboxStoreUrl('redis://localhost:6379/2')).toBe('redis://localhost:6379/2');
    expect(inboxStoreUrl('memory://')).toBe('memory://');
  });
});
