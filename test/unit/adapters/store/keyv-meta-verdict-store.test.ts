import { Keyv } from 'keyv';
import { describe, expect, it } from 'vitest';
import { createKeyvMetaVerdictStore } from '../../../../src/adapters/store/keyv-meta-verdict-store.js';

const ISSUE = { message: 'Invalid image', at: '2026-11-30T08:00:00.000Z', sentAt: '2026-11-30T07:59:59.000Z' };

describe("Meta's verdicts in the store", () => {
  it("keeps the items and the diagnostics of its catalog only, and never shows another catalog's", async () => {
    const keyv = new Keyv();
    const store = createKeyvMetaVerdictStore(keyv, { catalogId: '1' });
    await store.saveItems(new Map([['a', ISSUE]]));
    await store.saveDiagnostics({
      readAt: ISSUE.at,
      groups: [{ type: 'IMAGE_QUALITY', severity: 'OPPORTUNITY', title: 'Low', items: 3 }],
    });
    const again = createKeyvMetaVerdictStore(keyv, { catalogId: '1' });
    expect([...(await again.items())]).toEqual([['a', ISSUE]]);
    expect(await again.diagnostics()).toEqual({
      readAt: ISSUE.at,
      groups: [{ type: 'IMAGE_QUALITY', severity: 'OPPORTUNITY', title: 'Low', items: 3 }],
    });
    const other = createKeyvMetaVerdictStore(keyv, { catalogId: '2' });
    expect((await other.items()).size).toBe(0);
    expect(await other.diagnostics()).toBeUndefined();
  });

  it('leaves out a row of another shape, and reads the rows as first written (an array)', async () => {
    const keyv = new Keyv();
    await keyv.set('verdicts:meta:items', {
      catalog: '1',
      items: [['a', ISSUE.message, ISSUE.at, ISSUE.sentAt], ['b', 42], 'junk'],
    });
    expect([...(await createKeyvMetaVerdictStore(keyv, { catalogId: '1' }).items())]).toEqual([['a', ISSUE]]);
    await keyv.set('verdicts:meta:items', { catalog: '1', rows: 'not json' });
    expect((await createKeyvMetaVerdictStore(keyv, { catalogId: '1' }).items()).size).toBe(0);
  });
});
