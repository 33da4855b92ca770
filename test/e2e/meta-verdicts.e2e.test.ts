import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app/start-app.js';
import {
  closeFakes,
  eventually,
  type Fakes,
  pieceItem,
  pushEnv,
  removeStores,
  sellOut,
  startFakes,
  startPushApp,
  storeUrl,
} from '../helpers/push-kit.js';

/**
 * Meta's verdicts end to end (docs/channel-push.md#metas-verdicts): the real app on the sandbox pushes to the
 * fake Graph API; an item Meta refuses is shown with Meta's message on its page and `/api/products/{id}`, in
 * the overview, the warnings (Czech and English), `/readyz` and the metrics; the catalog's diagnostics are
 * read (every second here) and shown beside them.
 */

interface ReadyMeta {
  push?: { meta?: { verdicts?: { invalid: number; diagnostics?: { groups: unknown[] } } } };
}

interface WarningAnswer {
  warnings: { code: string; subject?: string; message: { en: string; cs: string } }[];
}

async function json<T>(url: string): Promise<T> {
  return (await (await fetch(url)).json()) as T;
}

async function text(url: string): Promise<string> {
  return (await fetch(url)).text();
}

describe("Meta's verdicts", () => {
  let app: RunningApp | undefined;
  let fakes: Fakes | undefined;
  afterEach(async () => {
    await app?.stop();
    await closeFakes(fakes);
    app = undefined;
    fakes = undefined;
  });
  afterAll(removeStores);

  it("shows an item Meta refused with Meta's message, and the catalog's diagnostics, where people look", async () => {
    fakes = await startFakes();
    const { meta } = fakes;
    meta.diagnostics.push({
      type: 'ATTRIBUTES_MISSING',
      severity: 'MUST_FIX',
      title: 'Items are missing a brand',
      subtitle: 'Add a brand to every item',
      number_of_affected_items: 7,
    });
    app = await startPushApp(pushEnv(fakes, storeUrl(), { META_DIAGNOSTICS_INTERVAL_MS: '1000' }));
    const running = app;
    const item = pieceItem(running);
    meta.items.set(item.id, { availability: 'in stock' });
    meta.invalidIds.add(item.id);
    await sellOut(running, item);

    const api = await eventually(
      async () =>
        (
          await json<{ channels?: { meta?: { issue?: { message: string } } } }>(
            `${running.url}/api/products/${encodeURIComponent(item.id)}`,
          )
        ).channels?.meta?.issue?.message,
      'The item violates the commerce policies.',
    );
    expect(api).toBe('The item violates the commerce policies.');
    const english = await text(`${running.url}/products/${encodeURIComponent(item.id)}?lang=en`);
    expect(english).toContain('<section id="meta-verdict" class="invalid">');
    expect(english).toContain('<span lang="en">The item violates the commerce policies.</span>');
    const czech = await text(`${running.url}/products/${encodeURIComponent(item.id)}?lang=cs`);
    expect(czech).toContain('Verdikt Mety');
    expect(czech).toContain('Meta při posledním odeslání označila položku za neplatnou');
    const other = running.catalog.current()?.products.find((product) => product.id !== item.id)?.id ?? '';
    expect(await text(`${running.url}/products/${encodeURIComponent(other)}?lang=en`)).toContain(
      '<section id="meta-verdict" class="clean">',
    );

    const ready = await eventually(
      async () => (await json<ReadyMeta>(`${running.url}/readyz`)).push?.meta?.verdicts?.diagnostics?.groups.length,
      1,
    );
    expect(ready).toBe(1);
    expect((await json<ReadyMeta>(`${running.url}/readyz`)).push?.meta?.verdicts?.invalid).toBe(1);
    expect(await text(`${running.url}/metrics`)).toContain('catalog_bridge_channel_items{channel="meta",status="invalid"} 1');

    const warnings = (await json<WarningAnswer>(`${running.url}/api/warnings`)).warnings.filter(
      (warning) => warning.subject === 'meta',
    );
    const disapproved = warnings.find((warning) => warning.code === 'CHANNEL_DISAPPROVED');
    expect(disapproved?.message.en).toContain(`"The item violates the commerce policies.", on 1 (e.g. item ${item.id})`);
    expect(disapproved?.message.cs).toContain('Meta při posledním odeslání označila za neplatné položky: 1.');
    const catalogIssues = warnings.find((warning) => warning.code === 'CHANNEL_ACCOUNT_ISSUES');
    expect(catalogIssues?.message.en).toContain('Items are missing a brand (7)');

    const overview = await text(`${running.url}/?lang=en`);
    expect(overview).toContain('<div id="verdicts-meta">');
    expect(overview).toContain('items invalid when last sent: 1');
    expect(overview).toContain('<span lang="en">Items are missing a brand</span> <code>ATTRIBUTES_MISSING</code> · items: 7');
    expect(await text(`${running.url}/?lang=cs`)).toContain('nutno opravit');
  });
});
