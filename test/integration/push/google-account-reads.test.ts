import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createGoogleAccountReads } from '../../../src/adapters/push/google-account-reads.js';
import { brokenImageStatus, type GoogleServer, startGoogleServer } from '../../fakes/channels/google-server.js';

/** The data source, quota and product status reads against the fake Merchant API (src/adapters/push/google-account-reads.ts). */

const ACCOUNT = '123';
const DATA_SOURCE = '456';
const EMAIL = 'push@bridge-test.iam.gserviceaccount.com';
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privateKey = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

function readsOf(server: GoogleServer, rootUrl = server.baseUrl) {
  return createGoogleAccountReads({
    rootUrl,
    account: ACCOUNT,
    dataSourceId: DATA_SOURCE,
    contentLanguage: 'cs',
    feedLabel: 'CZ',
    key: { client_email: EMAIL, private_key: privateKey },
    tokenUrl: server.tokenUrl,
    timeoutMs: 5_000,
  });
}

describe('Google account reads', () => {
  let server: GoogleServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const start = async () => {
    server = await startGoogleServer({
      account: ACCOUNT,
      dataSourceId: DATA_SOURCE,
      clientEmail: EMAIL,
      publicKey: keys.publicKey,
    });
    return server;
  };

  it('tells a primary from a supplemental API source; a file source, 404 and 403 are final problems naming it', async () => {
    const google = await start();
    const reads = readsOf(google);
    expect(await reads.dataSource()).toEqual({ kind: 'primary' });
    google.dataSourceKind = 'supplemental';
    expect(await reads.dataSource()).toEqual({ kind: 'supplemental' });
    for (const kind of ['file', 404, 403] as const) {
      google.dataSourceKind = kind;
      const read = await reads.dataSource();
      expect(read).toMatchObject({
        retry: false,
        problem: expect.stringContaining(`accounts/${ACCOUNT}/dataSources/${DATA_SOURCE}`) as unknown,
      });
    }
    const auth = google.requests.find((request) => request.url.startsWith('/datasources/v1/'))?.headers.authorization;
    expect(auth).toMatch(/^Bearer ya29\.fake-/);
  });

  it('a 503 or an unreachable API is tried again', async () => {
    const google = await start();
    const reads = readsOf(google);
    expect(await reads.dataSource()).toEqual({ kind: 'primary' });
    // The token is cached: the next request is the data source read itself.
    google.faults.failNext(1, { status: 503 });
    expect(await reads.dataSource()).toMatchObject({
      retry: true,
      problem: expect.stringContaining('HTTP 503') as unknown,
    });
    expect(await readsOf(google, 'http://127.0.0.1:1').dataSource()).toMatchObject({ retry: true });
  });

  it('reads the quota groups with their method paths', async () => {
    const google = await start();
    google.exhaustDailyQuota();
    const read = await readsOf(google).quotas();
    expect(read).toEqual({
      groups: [
        expect.objectContaining({
          usage: 100_000,
          dailyLimit: 100_000,
          minuteLimit: 6_000,
          methods: expect.arrayContaining(['products/v1/productInputs.insert']) as unknown,
        }),
        expect.objectContaining({ methods: expect.arrayContaining(['inventories/v1/localInventories.delete']) as unknown }),
      ],
    });
    expect(google.quotaReads()).toBe(1);
  });

  it("lists the products page by page past 1,000, with Google's verdicts, only those in the bridge's language and label", async () => {
    const google = await start();
    for (let index = 0; index < 2_345; index++) google.products.set(`cs~CZ~p${String(index).padStart(5, '0')}`, {});
    google.products.set('en~GB~p00001', {});
    google.extraListed.push({ name: 'accounts/123/products/odd', contentLanguage: 'cs' });
    google.statuses.set('cs~CZ~p00007', brokenImageStatus());
    const reads = readsOf(google);
    const verdicts = [];
    const unreadable: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const read = await reads.productsPage(token);
      if (!('page' in read)) throw new Error(read.problem);
      verdicts.push(...read.page.verdicts);
      unreadable.push(...read.page.unreadable);
      token = read.page.nextPageToken;
      pages += 1;
    } while (token !== undefined);

    expect(pages).toBe(3);
    // Only the verdict's fields: whole products (descriptions of 5,000 characters) would pass the size cap.
    expect(
      google.requests
        .filter((request) => request.url.includes('/products?'))
        .every((request) => new URL(request.url, 'http://x').searchParams.get('fields')?.startsWith('products(name,offerId')),
    ).toBe(true);
    expect(google.productListReads()).toBe(3);
    expect(
      google.requests
        .filter((request) => request.url.includes('/products?'))
        .map((request) => new URL(request.url, 'http://x').searchParams.get('pageSize')),
    ).toEqual(['1000', '1000', '1000']);
    expect(verdicts).toHaveLength(2_345);
    expect(unreadable).toEqual([expect.stringContaining('accounts/123/products/odd')]);
    expect(verdicts.find((verdict) => verdict.offerId === 'p00001')?.status).toBe('approved');
    expect(verdicts.find((verdict) => verdict.offerId === 'p00007')).toEqual({
      offerId: 'p00007',
      status: 'disapproved',
      destinations: [
        { context: 'SHOPPING_ADS', approved: [], pending: [], disapproved: ['CZ'] },
        { context: 'FREE_LISTINGS', approved: ['CZ'], pending: [], disapproved: [] },
      ],
      issues: [
        {
          code: 'image_link_broken',
          severity: 'DISAPPROVED',
          resolution: 'MERCHANT_ACTION',
          attribute: 'image_link',
          context: 'SHOPPING_ADS',
          description: 'Invalid image [image_link]',
          detail: 'Ensure the image is accessible and uses an accepted image format (JPEG, PNG, GIF)',
          documentation: 'https://support.google.com/merchants/answer/6098289',
          countries: ['CZ'],
        },
      ],
    });
    // The reads spend the account's quota like the sends do.
    expect(google.quotaGroups[0]?.usage).toBe(3);
  });

  it('a refused listing is a final problem, a 503 or a 429 one to try again', async () => {
    const google = await start();
    const reads = readsOf(google);
    await reads.dataSource();
    google.faults.failNext(1, { status: 403 });
    expect(await reads.productsPage()).toMatchObject({ retry: false, problem: expect.stringContaining('HTTP 403') as unknown });
    google.faults.failNext(1, { status: 503 });
    expect(await reads.productsPage()).toMatchObject({ retry: true, problem: expect.stringContaining('HTTP 503') as unknown });
    google.faults.failNext(1, { status: 429 });
    expect(await reads.productsPage()).toMatchObject({ retry: true });
    expect(await reads.productsPage()).toMatchObject({ page: { verdicts: [] } });
  });

  it("renders a product's issues and the account's in the language asked for, as plain text with Google's links only", async () => {
    const google = await start();
    const reads = readsOf(google);
    google.products.set('cs~CZ~a/1', {});
    google.statuses.set('cs~CZ~a/1', brokenImageStatus());
    google.accountIssues.set('cs', [
      { title: 'Chybí ověření webu', impact: { severity: 'ERROR', message: 'Nezobrazují se žádné produkty' } },
    ]);
    const product = await reads.renderedIssues({ offerId: 'a/1' }, 'cs');
    expect(product).toEqual({
      issues: [
        {
          title: 'Neplatný obrázek [image_link]',
          severity: 'ERROR',
          impact: 'Zamítá 1 nabídku v 1 zemi',
          detail: 'Obrázek produktu nejde stáhnout. Zkontrolujte, že je adresa obrázku veřejně dostupná.',
          breakdowns: [{ regions: 'Česko', details: ['Nezobrazuje se v reklamách'] }],
          actions: [
            { label: 'Opravit obrázek', attribute: 'image_link' },
            { label: 'Merchant Center', uri: `https://merchants.google.com/mc/items/details?a=${ACCOUNT}` },
          ],
        },
      ],
    });
    expect(await reads.renderedIssues({}, 'cs')).toEqual({
      issues: [{ title: 'Chybí ověření webu', severity: 'ERROR', impact: 'Nezobrazují se žádné produkty' }],
    });
    expect(await reads.renderedIssues({}, 'en')).toEqual({ issues: [] });
    expect(google.renderCalls).toEqual(['cs~CZ~a/1:cs', 'account:cs', 'account:en']);
    const call = google.requests.find((request) => request.url.includes(':renderproductissues'));
    expect(call?.url).toContain('languageCode=cs');
  });

  it('a refused render call is a problem naming the method', async () => {
    const google = await start();
    const reads = readsOf(google);
    expect(await reads.renderedIssues({}, 'en')).toEqual({ issues: [] });
    google.faults.failNext(1, { status: 403 });
    const read = await reads.renderedIssues({ offerId: 'x' }, 'en');
    expect(read).toEqual({ problem: expect.stringMatching(/^renderproductissues of product x answered HTTP 403/) as unknown });
  });
});
