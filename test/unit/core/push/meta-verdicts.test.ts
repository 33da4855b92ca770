import { describe, expect, it } from 'vitest';
import {
  applyItemVerdicts,
  META_ITEM_ISSUES_MAX,
  type MetaItemIssues,
  parseMetaDiagnostics,
  topMessagesOf,
} from '../../../../src/core/push/meta-verdicts.js';

describe("Meta's verdicts on the items", () => {
  it('keeps the newest message per item, clears a clean one, and keeps the same map when nothing changes', () => {
    const empty: MetaItemIssues = new Map();
    expect(applyItemVerdicts(empty, { invalid: [], valid: ['a'], sentAt: 's0' }, 't0')).toBe(empty);
    const one = applyItemVerdicts(empty, { invalid: [{ id: 'a', message: 'bad' }], valid: [], sentAt: 's1' }, 't1');
    const both = [
      { id: 'b', message: 'bad' },
      { id: 'a', message: 'worse' },
    ];
    const two = applyItemVerdicts(one, { invalid: both, valid: [], sentAt: 's2' }, 't2');
    expect([...two]).toEqual([
      ['b', { message: 'bad', at: 't2', sentAt: 's2' }],
      ['a', { message: 'worse', at: 't2', sentAt: 's2' }],
    ]);
    expect([...applyItemVerdicts(two, { invalid: [], valid: ['a', 'z'], sentAt: 's3' }, 't3')]).toEqual([
      ['b', { message: 'bad', at: 't2', sentAt: 's2' }],
    ]);
  });

  it("never lets an older batch's word override a newer one's", () => {
    const held = applyItemVerdicts(new Map(), { invalid: [{ id: 'a', message: 'new' }], valid: [], sentAt: 's5' }, 't5');
    expect(applyItemVerdicts(held, { invalid: [], valid: ['a'], sentAt: 's4' }, 't6')).toBe(held);
    expect(applyItemVerdicts(held, { invalid: [{ id: 'a', message: 'old' }], valid: [], sentAt: 's4' }, 't6')).toBe(held);
  });

  it('holds at most META_ITEM_ISSUES_MAX items, dropping the oldest, and cuts long messages', () => {
    const invalid = Array.from({ length: META_ITEM_ISSUES_MAX + 3 }, (_, index) => ({
      id: `i${index}`,
      message: 'x'.repeat(900),
    }));
    const kept = applyItemVerdicts(new Map(), { invalid, valid: [], sentAt: 's' }, 't');
    expect(kept.size).toBe(META_ITEM_ISSUES_MAX);
    expect(kept.has('i0')).toBe(false);
    expect(kept.get(`i${META_ITEM_ISSUES_MAX + 2}`)?.message).toHaveLength(500);
  });

  it('names the messages on the most items with an example each', () => {
    const issues = applyItemVerdicts(
      new Map(),
      {
        invalid: [
          { id: 'a', message: 'm1' },
          { id: 'b', message: 'm2' },
          { id: 'c', message: 'm2' },
        ],
        valid: [],
        sentAt: 's',
      },
      't',
    );
    expect(topMessagesOf(issues)).toEqual([
      { message: 'm2', items: 2, example: 'b' },
      { message: 'm1', items: 1, example: 'a' },
    ]);
  });
});

describe("Meta's catalog diagnostics", () => {
  it('reads the groups, leaving out an odd one, and follows the cursor only while Meta names a next page', () => {
    expect(
      parseMetaDiagnostics({
        data: [
          {
            type: 'ATTRIBUTES_INVALID',
            severity: 'MUST_FIX',
            title: 'Invalid GTIN',
            number_of_affected_items: 4,
            diagnostics: [{}],
          },
          { type: 'X', number_of_affected_items: -1 },
        ],
        paging: { cursors: { after: 'QVFI' }, next: 'https://graph.facebook.com/v21.0/1/diagnostics?after=QVFI' },
      }),
    ).toEqual({
      groups: [{ type: 'ATTRIBUTES_INVALID', severity: 'MUST_FIX', title: 'Invalid GTIN', items: 4 }],
      unreadable: 1,
      firstUnreadable: 'number_of_affected_items Too small: expected number to be >=0',
      after: 'QVFI',
    });
    expect(parseMetaDiagnostics({ data: [], paging: { cursors: { after: 'QVFI' } } })).toEqual({ groups: [], unreadable: 0 });
    expect(parseMetaDiagnostics({ error: { message: 'x' } })).toMatch(/^diagnostics answered something other than a list/);
  });
});
