import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import type { VerdictSummary } from '../../src/core/push/channel-verdicts.js';
import { brokenImageStatus, type GoogleServer } from '../fakes/channels/google-server.js';
import { createGoogleKit } from '../helpers/google-kit.js';
import { eventually } from '../helpers/push-kit.js';

/**
 * Google's verdicts read back end to end (docs/channel-push.md, "Google's verdicts"): the real app on the
 * sandbox pushes to the fake Merchant API, reads `products.list` back every GOOGLE_STATUS_INTERVAL_MS (1 s
 * here), and shows each product's verdict on `/api/products/{id}` and the counts on `/readyz`. A disapproval
 * appears, and clears when Google approves the item; a failed read keeps the last verdicts and says so.
 */

const kit = createGoogleKit();
const DISAPPROVED = brokenImageStatus();

interface ProductAnswer {
  channels?: {
    google?: {
      readAt?: string;
      lastError?: { message: string };
      verdict?: { status: string; issues: { code: string }[] };
      issueTexts?: Record<string, { texts: Record<string, { title: string; detail?: string }> }>;
    };
  };
}

async function productAnswer(app: RunningApp, id: string): Promise<ProductAnswer> {
  return (await (await fetch(`${app.url}/api/products/${encodeURIComponent(id)}`)).json()) as ProductAnswer;
}

async function text(url: string): Promise<string> {
  return (await fetch(url)).text();
}

interface WarningAnswer {
  warnings: { code: string; subject?: string; message: { en: string; cs: string }; action: { en: string; cs: string } }[];
}

async function disapprovalWarning(app: RunningApp) {
  const answer = (await (await fetch(`${app.url}/api/warnings`)).json()) as WarningAnswer;
  return answer.warnings.find((warning) => warning.code === 'CHANNEL_DISAPPROVED');
}

async function verdictsOf(app: RunningApp): Promise<VerdictSummary | undefined> {
  const ready = (await (await fetch(`${app.url}/readyz`)).json()) as { push?: { google?: { verdicts?: VerdictSummary } } };
  return ready.push?.google?.verdicts;
}

describe("Google's verdicts read back", () => {
  let app: RunningApp | undefined;
  let google: GoogleServer | undefined;
  afterEach(async () => {
    await app?.stop();
    await google?.close();
    app = undefined;
  });
  afterAll(() => kit.cleanUp());

  it('shows a disapproval on the product and in the counts, clears it when Google approves, and keeps it through a failed read', async () => {
    google = await kit.startFake();
    const fake = google;
    fake.fileUploads.set('789', {
      name: 'accounts/123/dataSources/789/fileUploads/latest',
      dataSourceId: '789',
      processingState: 'SUCCEEDED',
      uploadTime: '2026-11-29T06:00:00Z',
      itemsTotal: '40',
      itemsCreated: '2',
      itemsUpdated: '38',
      issues: [{ code: 'invalid_gtin', title: 'Invalid GTIN', count: '1', severity: 'WARNING' }],
    });
    fake.accountIssues.set('cs', [
      { title: 'Neověřený web', impact: { severity: 'ERROR', message: 'Nezobrazují se žádné produkty' } },
    ]);
    fake.accountIssues.set('en', [
      { title: 'Unverified website', impact: { severity: 'ERROR', message: 'No products are showing' } },
    ]);
    app = await startApp(kit.config(fake, { GOOGLE_STATUS_INTERVAL_MS: '1000', GOOGLE_MERCHANT_FILE_DATA_SOURCE_ID: '789' }), {
      logger: pino({ level: 'silent' }),
    });
    await app.initialSync;
    const running = app;
    const id = running.catalog.current()?.products.find((product) => product.offers.length > 0)?.id ?? '';
    await eventually(() => fake.products.has(`cs~CZ~${id}`), true, 40_000);

    fake.statuses.set(`cs~CZ~${id}`, DISAPPROVED);
    expect(
      await eventually(async () => (await productAnswer(running, id)).channels?.google?.verdict?.status, 'disapproved', 40_000),
    ).toBe('disapproved');
    const answer = await productAnswer(running, id);
    expect(answer.channels?.google?.verdict?.issues.map((issue) => issue.code)).toEqual(['image_link_broken']);
    expect(answer.channels?.google?.readAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    const summary = await eventually(async () => (await verdictsOf(running))?.counts.disapproved, 1, 40_000);
    expect(summary).toBe(1);
    expect((await verdictsOf(running))?.topIssues[0]).toMatchObject({ code: 'image_link_broken', items: 1, example: id });
    const metrics = await eventually(
      async () =>
        (await (await fetch(`${running.url}/metrics`)).text()).includes(
          'catalog_bridge_channel_items{channel="google",status="disapproved"} 1',
        ),
      true,
      40_000,
    );
    expect(metrics).toBe(true);

    // Where people look: the product page and the warnings, in Czech and English.
    const english = await text(`${running.url}/products/${encodeURIComponent(id)}?lang=en`);
    expect(english).toContain('<section id="google-verdict" class="disapproved">');
    expect(english).toMatch(/<h2>Google(&#39;|&#x27;|')s verdict<\/h2>/);
    expect(english).toContain('Shopping ads: <span class="bad">disapproved in CZ</span>');
    // Google's texts, rendered in the console's language (renderproductissues), lead; its code stays beside.
    expect(english).toContain(
      '<strong>Invalid image [image_link]</strong> <code>image_link_broken</code> · attribute <code>image_link</code>',
    );
    expect(english).toContain('The product&#39;s image cannot be downloaded.');
    expect(english).toContain(
      '<a href="https://merchants.google.com/mc/items/details?a=123" rel="noreferrer noopener">Merchant Center</a>',
    );
    expect(english).toContain('<a href="https://support.google.com/merchants/answer/6098289" rel="noreferrer noopener">');
    const czech = await text(`${running.url}/products/${encodeURIComponent(id)}?lang=cs`);
    expect(czech).toContain('Verdikt Googlu');
    expect(czech).toContain('Reklamy v Nákupech: <span class="bad">zamítnuto v CZ</span>');
    expect(czech).toContain('je třeba zásah obchodu');
    expect(czech).toContain('<strong>Neplatný obrázek [image_link]</strong> <code>image_link_broken</code>');
    expect(czech).toContain('Obrázek produktu nejde stáhnout.');
    expect(czech).toContain(
      'Opravit obrázek <span class="muted">(atribut image_link: opravte ho tam, odkud hodnota pochází)</span>',
    );
    expect(answer.channels?.google?.issueTexts?.image_link_broken?.texts.cs?.title).toBe('Neplatný obrázek [image_link]');
    expect(answer.channels?.google?.issueTexts?.image_link_broken?.texts.en?.title).toBe('Invalid image [image_link]');
    // One product's rendering per language serves every product with that issue (the budget).
    expect(fake.renderCalls.filter((call) => call.startsWith('cs~CZ~'))).toEqual([`cs~CZ~${id}:cs`, `cs~CZ~${id}:en`]);
    const warning = await eventually(async () => (await disapprovalWarning(running))?.subject, 'google', 40_000);
    expect(warning).toBe('google');
    const shown = await disapprovalWarning(running);
    expect(shown?.message.en).toContain('Google disapproves 1 of');
    expect(shown?.message.en).toContain(
      `image_link_broken (Invalid image [image_link]), attribute image_link, on 1 (e.g. product ${id})`,
    );
    expect(shown?.message.cs).toContain('Google zamítá 1 z');
    expect(shown?.message.cs).toContain('image_link_broken (Neplatný obrázek [image_link]), atribut image_link');
    const accountWarning = ((await (await fetch(`${running.url}/api/warnings`)).json()) as WarningAnswer).warnings.find(
      (candidate) => candidate.code === 'CHANNEL_ACCOUNT_ISSUES',
    );
    expect(accountWarning?.message.cs).toContain('Neověřený web (Nezobrazují se žádné produkty)');
    expect(accountWarning?.message.en).toContain('Unverified website (No products are showing)');
    expect(shown?.action.cs).toContain('Verdikt Googlu');
    expect(await text(`${running.url}/warnings?lang=cs`)).toContain('CHANNEL_DISAPPROVED');
    const overview = await text(`${running.url}/?lang=en`);
    expect(overview).toContain('<div id="verdicts-google">');
    expect(overview).toMatch(/approved \d+ · pending \d+ · disapproved 1/);
    expect(overview).toContain('<code>image_link_broken</code> Invalid image [image_link] on 1');
    expect(overview).toContain('<div id="google-account-issues">');
    expect(overview).toContain('<strong>Unverified website</strong>');
    expect(await text(`${running.url}/?lang=cs`)).toContain('<strong>Neověřený web</strong>');
    expect(await text(`${running.url}/?lang=cs`)).toMatch(/schváleno \d+ · čeká \d+ · zamítnuto 1/);
    // Google's last fetch of google.xml (the file source), read with the verdicts.
    expect((await verdictsOf(running))?.fileFetch).toMatchObject({
      state: 'SUCCEEDED',
      items: { total: 40, created: 2, updated: 38 },
    });
    expect(overview).toContain('40 items (2 new, 38 updated)');
    expect(overview).toContain('<code>invalid_gtin</code> <span lang="en">Invalid GTIN</span> (1)');

    // A failed read: the verdicts stay, the error is said.
    fake.failProductListing(503);
    expect(
      await eventually(async () => (await verdictsOf(running))?.lastError?.message.includes('HTTP 503') === true, true, 40_000),
    ).toBe(true);
    expect((await productAnswer(running, id)).channels?.google?.verdict?.status).toBe('disapproved');
    expect((await productAnswer(running, id)).channels?.google?.lastError?.message).toContain('HTTP 503');
    const failedWarning = await eventually(
      async () =>
        ((await (await fetch(`${running.url}/api/warnings`)).json()) as WarningAnswer).warnings.some(
          (entry) => entry.code === 'CHANNEL_VERDICTS_FAILED',
        ),
      true,
      40_000,
    );
    expect(failedWarning).toBe(true);

    // Google approves: the next read clears it, and the error.
    fake.failProductListing(undefined);
    fake.statuses.delete(`cs~CZ~${id}`);
    expect(
      await eventually(async () => (await productAnswer(running, id)).channels?.google?.verdict?.status, 'approved', 40_000),
    ).toBe('approved');
    expect(await eventually(async () => (await verdictsOf(running))?.counts.disapproved, 0, 40_000)).toBe(0);
    expect((await verdictsOf(running))?.lastError).toBeUndefined();
    expect(await eventually(async () => (await disapprovalWarning(running)) === undefined, true, 40_000)).toBe(true);
    expect(await text(`${running.url}/products/${encodeURIComponent(id)}?lang=en`)).toContain(
      '<section id="google-verdict" class="approved">',
    );
  });

  it("reads Google's verdicts in a dry run too (reads, not sends): what Google says of the products google.xml gave it", async () => {
    google = await kit.startFake();
    const fake = google;
    app = await startApp(kit.config(fake, { PUSH_DRY_RUN: 'true', GOOGLE_STATUS_INTERVAL_MS: '1000' }), {
      logger: pino({ level: 'silent' }),
    });
    await app.initialSync;
    const running = app;
    const id = running.catalog.current()?.products.find((product) => product.offers.length > 0)?.id ?? '';
    // Merchant Center holds the product from the shop's feed file; the bridge sends nothing in a dry run.
    fake.products.set(`cs~CZ~${id}`, {});
    fake.statuses.set(`cs~CZ~${id}`, DISAPPROVED);
    expect(
      await eventually(async () => (await productAnswer(running, id)).channels?.google?.verdict?.status, 'disapproved', 40_000),
    ).toBe('disapproved');
    expect(fake.requests.filter((request) => request.method !== 'GET' && !request.url.includes(':render'))).toEqual(
      fake.requests.filter((request) => request.url === '/token'),
    );
    // No data source or quota read either: the dry run's sends stay ungated.
    expect(fake.quotaReads()).toBe(0);
    expect(fake.requests.some((request) => request.url.startsWith('/datasources/'))).toBe(false);
  });
});
