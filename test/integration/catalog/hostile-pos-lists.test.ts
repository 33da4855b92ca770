import { describe, it } from 'vitest';
import { CASES, runHostileCase, useHostilePos } from './hostile-pos-kit.js';

/** A full sync against a POS hostile in its unit and article lists (the kit says what each mode does). */
describe('catalog/ a full sync against a POS hostile in its lists', () => {
  useHostilePos();

  it.each(CASES.filter((entry) => entry.endpoint === 'unit-list' || entry.endpoint === 'article-list'))(
    '$endpoint $mode: ends with $code, keeps the catalog, bounded memory',
    runHostileCase,
  );
});
