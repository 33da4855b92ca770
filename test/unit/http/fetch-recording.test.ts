import { describe, expect, it } from 'vitest';
import { feedOfPath } from '../../../src/http/fetch-recording.js';

describe('feedOfPath', () => {
  it.each([
    ['/feeds/all/google.xml', { feed: 'google.xml', view: 'all' }],
    ['/feeds/U1/products.csv', { feed: 'products.csv', view: 'U1' }],
    ['/feeds/all/changes.json', { feed: 'changes.json', view: 'all' }],
    ['/feeds/local-inventory.tsv', { feed: 'local-inventory.tsv', view: 'all' }],
  ])('%s is a feed request', (path, target) => {
    expect(feedOfPath(path)).toEqual(target);
  });

  it.each(['/feeds', '/feeds/', '/feeds/google.xml', '/feeds//google.xml', '/feeds/all/', '/feeds/a/b/c', '/fetches', '/'])(
    '%s is not',
    (path) => {
      expect(feedOfPath(path)).toBeUndefined();
    },
  );
});
