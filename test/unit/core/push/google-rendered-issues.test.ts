import { describe, expect, it } from 'vitest';
import {
  matchIssueTexts,
  parseRenderedIssues,
  type RenderedIssueText,
} from '../../../../src/core/push/google-rendered-issues.js';

describe("Google's rendered issues", () => {
  it('keeps the title, impact, breakdowns, the detail as plain text and the actions that lead to Google, name an attribute or say something', () => {
    const issues = parseRenderedIssues({
      renderedIssues: [
        {
          title: 'Neplatný obrázek [image_link]',
          impact: {
            message: 'Zamítá 1 nabídku v 1 zemi',
            severity: 'ERROR',
            breakdowns: [{ regions: [{ code: 'CZ', name: 'Česko' }], details: ['Produkty se nezobrazují v reklamách'] }],
          },
          prerenderedContent:
            '<div class="issue-detail"><p>Obrázek <span class="segment-attribute">image_link</span> nejde stáhnout &amp; zobrazit.</p><script>alert(1)</script><a href="javascript:x">odkaz</a></div>',
          actions: [
            { buttonLabel: 'Upravit obrázek', builtinSimpleAction: { type: 'EDIT_ITEM_ATTRIBUTE', attributeCode: 'image_link' } },
            {
              buttonLabel: 'Otevřít Merchant Center',
              externalAction: { type: 'REVIEW_PRODUCT_ISSUE_IN_MERCHANT_CENTER', uri: 'https://merchants.google.com/mc/items' },
            },
            { buttonLabel: 'Jinam', externalAction: { uri: 'https://evil.example/' } },
            { buttonLabel: 'Stránka kohokoli', externalAction: { uri: 'https://sites.google.com/view/x' } },
            { buttonLabel: 'Přesměrování', externalAction: { uri: 'https://www.google.com/url?q=https://evil.example/' } },
            { buttonLabel: 'Nedostupné', isAvailable: false },
            { buttonLabel: 'Ověřit telefon', builtinSimpleAction: { type: 'VERIFY_PHONE' } },
            {
              buttonLabel: 'Přečíst',
              builtinSimpleAction: {
                type: 'SHOW_ADDITIONAL_CONTENT',
                additionalContent: { title: 'Proč', paragraphs: ['Protože obrázek chybí.'] },
              },
            },
          ],
        },
        { impact: { message: 'no title: left out' } },
      ],
    });
    expect(issues).toEqual([
      {
        title: 'Neplatný obrázek [image_link]',
        severity: 'ERROR',
        impact: 'Zamítá 1 nabídku v 1 zemi',
        detail: 'Obrázek image_link nejde stáhnout & zobrazit.\n\nodkaz',
        breakdowns: [{ regions: 'Česko', details: ['Produkty se nezobrazují v reklamách'] }],
        actions: [
          { label: 'Upravit obrázek', attribute: 'image_link' },
          { label: 'Otevřít Merchant Center', uri: 'https://merchants.google.com/mc/items' },
          { label: 'Přečíst', content: 'Proč\nProtože obrázek chybí.' },
        ],
      },
    ]);
  });

  it('names the problem of an answer that is not a rendering', () => {
    expect(parseRenderedIssues({ renderedIssues: 'x' })).toMatch(/^the rendered issues could not be read: renderedIssues/);
    expect(parseRenderedIssues({})).toEqual([]);
  });

  it('matches by elimination across examples in any order, and never guesses', () => {
    const t = (title: string): RenderedIssueText => ({ title });
    const known = new Map<string, RenderedIssueText>();
    matchIssueTexts(
      [
        { codes: ['a', 'b', 'c'], rendered: [t('C'), t('A'), t('B')] },
        { codes: ['b', 'a'], rendered: [t('B'), t('A')] },
        { codes: ['a'], rendered: [t('A')] },
        { codes: ['x', 'y'], rendered: [t('X'), t('Y')] },
      ],
      known,
    );
    expect(Object.fromEntries([...known].map(([code, text]) => [code, text.title]))).toEqual({ a: 'A', b: 'B', c: 'C' });
  });
});
