import { describe, expect, it } from 'vitest';
import { parseProductsPage, statusOf, verdictOf } from '../../../../src/core/push/google-product-status.js';

const CS = { contentLanguage: 'cs', feedLabel: 'CZ' };

function destination(context: string, countries: { approved?: string[]; pending?: string[]; disapproved?: string[] }) {
  return {
    context,
    approved: countries.approved ?? [],
    pending: countries.pending ?? [],
    disapproved: countries.disapproved ?? [],
  };
}

describe("Google's verdict on a product (products.list)", () => {
  it('is the worst of its destinations: disapproved anywhere, else pending anywhere, else approved', () => {
    expect(
      statusOf([destination('SHOPPING_ADS', { approved: ['CZ'] }), destination('FREE_LISTINGS', { approved: ['CZ'] })]),
    ).toBe('approved');
    expect(statusOf([destination('SHOPPING_ADS', { approved: ['CZ'] }), destination('FREE_LISTINGS', { pending: ['CZ'] })])).toBe(
      'pending',
    );
    expect(statusOf([destination('SHOPPING_ADS', { disapproved: ['SK'], approved: ['CZ'] })])).toBe('disapproved');
    // Listed, with no destination yet: Google has not decided.
    expect(statusOf([])).toBe('pending');
    // The shop's country decides where Google says something of it: a disapproval abroad (cross-border) is not the shop's.
    const abroad = [destination('SHOPPING_ADS', { approved: ['CZ'], disapproved: ['SK', 'DE'] })];
    expect(statusOf(abroad, 'CZ')).toBe('approved');
    expect(statusOf(abroad)).toBe('disapproved');
    expect(statusOf([destination('FREE_LISTINGS', { pending: ['CZ'] })], 'CZ')).toBe('pending');
    expect(statusOf([destination('FREE_LISTINGS', { approved: ['SK'] })], 'CZ')).toBe('approved');
  });

  it('reads nulls and missing fields as absent (Google omits what is empty)', () => {
    const verdict = verdictOf({
      name: 'accounts/1/products/x',
      offerId: 'x',
      contentLanguage: 'cs',
      feedLabel: 'CZ',
      productStatus: {
        destinationStatuses: [{ reportingContext: null, approvedCountries: null, pendingCountries: ['CZ'] }],
        itemLevelIssues: [{ code: 'missing_gtin', severity: 'NOT_IMPACTED', description: null, applicableCountries: null }],
        lastUpdateDate: null,
      },
    });
    expect(verdict).toEqual({
      offerId: 'x',
      status: 'pending',
      destinations: [destination('REPORTING_CONTEXT_UNSPECIFIED', { pending: ['CZ'] })],
      issues: [{ code: 'missing_gtin', severity: 'NOT_IMPACTED' }],
    });
    expect(verdictOf({ name: 'n', offerId: 'y', contentLanguage: 'cs', feedLabel: 'CZ' }).status).toBe('pending');
  });

  it('says so when the answer is not a listing, and names a product it cannot read without losing the page', async () => {
    expect(await parseProductsPage({ products: 'none' }, CS)).toMatch(/something other than a product listing/);
    const page = await parseProductsPage(
      {
        products: [
          { name: 'accounts/1/products/a', offerId: 'a', contentLanguage: 'cs', feedLabel: 'CZ' },
          { name: 'accounts/1/products/b', offerId: 7, contentLanguage: 'cs', feedLabel: 'CZ' },
          { name: 'accounts/1/products/c', offerId: 'c', contentLanguage: 'de', feedLabel: 'DE' },
        ],
        nextPageToken: '',
      },
      CS,
    );
    if (typeof page === 'string') throw new Error(page);
    expect(page.verdicts.map((verdict) => verdict.offerId)).toEqual(['a']);
    expect(page.unreadable).toEqual([expect.stringMatching(/^accounts\/1\/products\/b: offerId/)]);
    expect(page.nextPageToken).toBeUndefined();
  });
});
