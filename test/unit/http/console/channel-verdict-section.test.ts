import { describe, expect, it } from 'vitest';
import type { IssueTexts } from '../../../../src/core/push/channel-verdicts.js';
import type { GoogleVerdict } from '../../../../src/core/push/google-product-status.js';
import { googleVerdictSection } from '../../../../src/http/console/channel-verdict-section.js';

const ISSUE = {
  code: 'image_link_broken',
  severity: 'DISAPPROVED',
  attribute: 'image_link',
  description: 'Invalid image [image_link]',
  detail: 'Ensure the image is accessible',
};

function verdict(offerId: string): GoogleVerdict {
  return { offerId, status: 'disapproved', destinations: [], issues: [ISSUE] };
}

const TEXTS: IssueTexts = {
  image_link_broken: {
    renderedAt: '2026-11-30T08:00:00.000Z',
    example: 'p1',
    texts: {
      cs: {
        title: 'Neplatný obrázek <img src=x>',
        detail: 'Obrázek produktu p1 (https://shop/p1.jpg) nejde stáhnout.',
        actions: [{ label: 'Merchant Center', uri: 'https://merchants.google.com/mc/items/details?offerId=p1' }],
      },
    },
  },
};

const HREF = (id: string) => `/products/${encodeURIComponent(id)}`;

describe("a product page's Google verdict", () => {
  it("shows Google's whole rendered text on the product it was rendered for, escaped", () => {
    const html = googleVerdictSection(
      'cs',
      { readAt: '2026-11-30T08:00:00.000Z', verdict: verdict('p1'), issueTexts: TEXTS },
      HREF,
    );
    expect(html).toContain('<strong>Neplatný obrázek &lt;img src=x&gt;</strong> <code>image_link_broken</code>');
    expect(html).toContain('Obrázek produktu p1 (https://shop/p1.jpg) nejde stáhnout.');
    expect(html).toContain('href="https://merchants.google.com/mc/items/details?offerId=p1"');
  });

  it("shows only the title elsewhere, beside the product's own words, and links the product the text was written for", () => {
    const html = googleVerdictSection(
      'cs',
      { readAt: '2026-11-30T08:00:00.000Z', verdict: verdict('p2'), issueTexts: TEXTS },
      HREF,
    );
    expect(html).toContain('<strong>Neplatný obrázek &lt;img src=x&gt;</strong>');
    expect(html).not.toContain('p1.jpg');
    expect(html).not.toContain('merchants.google.com');
    expect(html).toContain('<span lang="en">Invalid image [image_link] — Ensure the image is accessible</span>');
    expect(html).toContain('napsané pro jiný produkt se stejným problémem: <a href="/products/p1">p1</a>');
  });
});
