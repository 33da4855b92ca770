import { describe, expect, it } from 'vitest';
import { SECOND_THREAD_ARTICLES, usesSecondThread } from '../../../../src/core/catalog/document-threads.js';

describe('core/catalog/document-threads', () => {
  it('takes a second thread when set to 2, never when set to 1 or not set, whatever the catalog', () => {
    for (const articles of [0, 100_000, 5_000_000]) {
      expect(usesSecondThread(2, articles)).toBe(true);
      expect(usesSecondThread(1, articles)).toBe(false);
      expect(usesSecondThread(undefined, articles)).toBe(false);
    }
  });

  it('takes a second thread with auto from SECOND_THREAD_ARTICLES articles on', () => {
    expect(SECOND_THREAD_ARTICLES).toBe(250_000);
    expect(usesSecondThread('auto', 0)).toBe(false);
    expect(usesSecondThread('auto', 100_000)).toBe(false);
    expect(usesSecondThread('auto', 249_999)).toBe(false);
    expect(usesSecondThread('auto', 250_000)).toBe(true);
    expect(usesSecondThread('auto', 1_000_000)).toBe(true);
  });
});
