import { describe, expect, it } from 'vitest';
import type { ConsoleContext } from '../../../../src/http/console/layout.js';
import { type OverviewModel, overviewPage } from '../../../../src/http/console/overview-page.js';

/** The overview page is a function of its view model: no service is called while it renders. */

const context: ConsoleContext = {
  lang: 'en',
  path: '/',
  token: undefined,
  params: {},
  href: (path) => path,
};

const waitingModel: OverviewModel = {
  snapshot: undefined,
  base: 'http://bridge.test',
  tokenQuery: '',
  sync: { 'sync-catalog': null, 'sync-stock': null },
  entries: [],
  lastCatalogReport: undefined,
  consoleWarnings: undefined,
  source: 'pos:https://pos.example',
  pos: undefined,
  waiting: {
    reason: 'the first sync is <still> running',
    notServed: { version: 'v1', products: 12, source: 'pos:https://old.example' },
  },
  fallbackWarnings: ['Set FEED_BRAND'],
  store: undefined,
  group: undefined,
  nextRuns: { 'sync-catalog': '2026-11-26T10:00:00.000Z' },
  webhooks: undefined,
  push: undefined,
  enrichment: undefined,
};

describe('overviewPage', () => {
  it('says why no catalog is served yet, escaped, and refreshes itself', () => {
    const page = overviewPage(context, waitingModel);
    expect(page.body).toContain('id="waiting"');
    expect(page.body).toContain('The first sync is &lt;still&gt; running.');
    expect(page.body).toContain('id="not-served"');
    expect(page.body).toContain('<li>Set FEED_BRAND</li>');
    expect(page.body).toContain('<time datetime="2026-11-26T10:00:00.000Z">');
    expect(page.refreshSeconds).toBe(5);
  });

  it('renders the same page twice from the same model', () => {
    expect(overviewPage(context, waitingModel)).toEqual(overviewPage(context, waitingModel));
  });
});
