import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot } from '../../../../src/core/catalog/catalog.js';
import { isLoggedFeed } from '../../../../src/services/fetches/fetch-log-scope.js';

const snapshot = { units: [{ code: 'U1', localId: 'u1', name: 'Praha' }] } as unknown as CatalogSnapshot;
const known = (current: CatalogSnapshot | undefined) => ({
  isFeed: (file: string) => ['google.xml', 'products.json', 'local-inventory.tsv'].includes(file),
  current: () => current,
});

describe('which feed requests the fetch log keeps', () => {
  it('keeps the feeds the bridge serves, in its views, the changes feed included', () => {
    expect(isLoggedFeed({ feed: 'google.xml', view: 'all' }, known(snapshot))).toBe(true);
    expect(isLoggedFeed({ feed: 'products.json', view: 'U1' }, known(snapshot))).toBe(true);
    expect(isLoggedFeed({ feed: 'changes.json', view: 'U1' }, known(snapshot))).toBe(true);
    expect(isLoggedFeed({ feed: 'local-inventory.tsv', view: 'all' }, known(snapshot))).toBe(true);
  });

  it("leaves out a scanner's made-up feeds and views, which would crowd out the channels", () => {
    expect(isLoggedFeed({ feed: 'junk1.xml', view: 'all' }, known(snapshot))).toBe(false);
    expect(isLoggedFeed({ feed: 'google.xml', view: 'v123' }, known(snapshot))).toBe(false);
  });

  it('keeps any view before the first catalog, when no unit is known yet', () => {
    expect(isLoggedFeed({ feed: 'google.xml', view: 'U7' }, known(undefined))).toBe(true);
    expect(isLoggedFeed({ feed: 'junk.xml', view: 'U7' }, known(undefined))).toBe(false);
  });
});
