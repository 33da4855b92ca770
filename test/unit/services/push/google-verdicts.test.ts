import { Keyv } from 'keyv';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createKeyvVerdictStore } from '../../../../src/adapters/store/keyv-verdict-store.js';
import type { GoogleVerdict } from '../../../../src/core/push/google-product-status.js';
import type { ProductsPageRead } from '../../../../src/services/push/google-account-port.js';
import { createGoogleVerdicts, type VerdictStore } from '../../../../src/services/push/google-verdicts.js';

function verdict(offerId: string, status: GoogleVerdict['status']): GoogleVerdict {
  return { offerId, status, destinations: [], issues: [] };
}

/** Three pages of listing; `answers` may replace a page's answer. */
function setup(
  options: {
    leader?: boolean;
    quota?: boolean;
    answers?: Record<number, ProductsPageRead>;
    store?: VerdictStore;
    file?: string;
  } = {},
) {
  const store = options.store ?? createKeyvVerdictStore(new Keyv(), { channel: 'google', account: '1' });
  const calls = { pages: 0, paced: 0, files: 0, renders: 0 };
  const pages: ProductsPageRead[] = [
    { page: { verdicts: [verdict('a', 'approved'), verdict('b', 'disapproved')], unreadable: [], nextPageToken: 't1' } },
    { page: { verdicts: [verdict('c', 'pending')], unreadable: ['accounts/1/products/x: offerId'], nextPageToken: 't2' } },
    // Enough readable products that one odd product is no reason to fail the read.
    { page: { verdicts: Array.from({ length: 10 }, (_, index) => verdict(`d${index}`, 'approved')), unreadable: [] } },
  ];
  const verdicts = createGoogleVerdicts({
    reads: {
      productsPage: async (token) => {
        const index = token === undefined ? 0 : Number(token.slice(1));
        calls.pages += 1;
        return options.answers?.[index] ?? (pages[index] as ProductsPageRead);
      },
      fileUpload: async (id) => {
        calls.files += 1;
        return { fetch: { dataSource: `accounts/1/dataSources/${id}`, state: 'SUCCEEDED', items: { total: 4 }, issues: [] } };
      },
      renderedIssues: async () => {
        calls.renders += 1;
        return { issues: [] };
      },
    },
    ...(options.file === undefined ? {} : { fileDataSourceId: options.file }),
    paced: async (call) => {
      calls.paced += 1;
      return options.quota === false ? undefined : call();
    },
    store,
    isLeader: () => options.leader ?? true,
    intervalMs: 60_000,
    firstDelayMs: 60_000,
    followMs: 60_000,
    now: () => Date.parse('2026-11-29T10:00:00Z'),
    logger: pino({ level: 'silent' }),
  });
  return { verdicts, store, calls };
}

describe("Google's verdicts, read back", () => {
  it('reads every page in turn with the sends, then keeps the verdicts and their summary', async () => {
    const { verdicts, calls } = setup();
    expect(await verdicts.readNow()).toBe('read');
    // Every page, then the account's issues in Czech and English.
    expect(calls).toEqual({ pages: 3, paced: 5, files: 0, renders: 2 });
    expect((await verdicts.verdict('b'))?.status).toBe('disapproved');
    expect(verdicts.summary()).toMatchObject({
      readAt: '2026-11-29T10:00:00.000Z',
      counts: { approved: 11, pending: 1, disapproved: 1 },
      unreadable: { count: 1, first: 'accounts/1/products/x: offerId' },
    });
  });

  it("reads the google.xml file source's last fetch with the verdicts when it is configured", async () => {
    const { verdicts, calls } = setup({ file: '789' });
    expect(await verdicts.readNow()).toBe('read');
    expect(calls).toEqual({ pages: 3, paced: 6, files: 1, renders: 2 });
    expect(verdicts.summary()?.fileFetch).toEqual({
      dataSource: 'accounts/1/dataSources/789',
      state: 'SUCCEEDED',
      items: { total: 4 },
      issues: [],
    });
  });

  it('fails a read of which much could not be read (a changed format), keeping the verdicts before', async () => {
    const odd = { page: { verdicts: [], unreadable: ['accounts/1/products/y: offerId', 'accounts/1/products/z: offerId'] } };
    const { verdicts } = setup({ answers: { 2: odd } });
    expect(await verdicts.readNow()).toBe('failed');
    expect(verdicts.summary()?.lastError?.message).toBe(
      "3 of 6 products in Google's listing could not be read (the first: accounts/1/products/x: offerId)",
    );
  });

  it('reads nothing on a follower', async () => {
    const { verdicts, calls } = setup({ leader: false });
    expect(await verdicts.readNow()).toBe('skipped');
    expect(calls.pages).toBe(0);
  });

  it('keeps the last verdicts when a page fails, or the quota is spent, and says why', async () => {
    const ok = setup();
    await ok.verdicts.readNow();
    // The same store as the good read: the failed read must not replace it.
    const failing = setup({ store: ok.store, answers: { 1: { problem: 'products could not be read (HTTP 503)', retry: true } } });
    expect(await failing.verdicts.readNow()).toBe('failed');
    expect(failing.verdicts.summary()?.lastError?.message).toBe('products could not be read (HTTP 503)');
    expect(failing.verdicts.summary()?.counts).toEqual({ approved: 11, pending: 1, disapproved: 1 });
    expect((await failing.verdicts.verdict('b'))?.status).toBe('disapproved');
    const spent = setup({ quota: false });
    expect(await spent.verdicts.readNow()).toBe('failed');
    expect(spent.calls.pages).toBe(0);
    expect(spent.verdicts.summary()?.lastError?.message).toMatch(/quota is spent/);
  });
});
