import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogSnapshot, Offer } from '../../../src/core/catalog/catalog.js';
import { createChangeLog } from '../../../src/core/catalog/change-log.js';
import { createHttpApp } from '../../../src/http/create-http-app.js';
import { createFeedRoutes } from '../../../src/http/routes/feed-routes.js';
import { FIRST_RENDERS_PER_CLIENT } from '../../../src/http/routes/render-admission.js';
import { createFeedCache } from '../../../src/services/feeds/feed-cache.js';
import type { FeedRenderer, RenderedBody } from '../../../src/services/feeds/feed-renderer.js';
import { createFeedService } from '../../../src/services/feeds/feed-service.js';

/**
 * Anyone may ask for any unit's feed, and a feed never rendered is a render the request waits for: one
 * client waits for at most two such first renders at once; a third is answered 429 at once, while other
 * clients and feeds rendered before are served as ever (docs/security.md#bounded-work).
 */

const offer = (unit: string): Offer => ({ unit, price: 10, stock: 1, availability: 'in_stock' });
const SNAPSHOT: CatalogSnapshot = {
  version: 'v-20261129T200000000Z-00000001',
  generatedAt: '2026-11-29T20:00:00.000Z',
  currency: 'CZK',
  primaryUnit: 'U1',
  units: [{ code: 'U1', localId: 'u1', name: 'Praha' }],
  products: [{ id: 'a-1', name: 'Káva', isStockItem: true, offers: [offer('U1')], aggregate: offer('all') }],
};

/** Renders held until released, then each feed's name as its body. */
function heldRenderer() {
  let release: () => void = () => undefined;
  let held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const renderer: FeedRenderer = {
    async render(target, requests) {
      await held;
      return requests.map((request): RenderedBody => {
        const body = Buffer.from(`${target.version} ${request.file} ${request.view}`);
        return { identity: body, identityLength: body.length, report: { feed: request.file, items: 1 } as never };
      });
    },
    async close() {},
  };
  return {
    renderer,
    release: () => {
      release();
      held = Promise.resolve();
    },
  };
}

describe('first renders of feeds, per client', () => {
  const held = heldRenderer();
  const feeds = createFeedService({
    templates: [],
    renderer: held.renderer,
    cache: createFeedCache({ maxBytes: 1_000_000 }),
    changeLog: createChangeLog({ maxTransitions: 5 }),
    options: { currency: 'CZK', brand: undefined, baseUrl: '', links: { storeCodes: {} } },
  });
  feeds.recordChange(undefined, SNAPSHOT);
  const app = createHttpApp({
    logger: pino({ level: 'silent' }),
    health: { readiness: () => ({ ready: true }) },
    trustProxy: 'loopback',
    routers: [createFeedRoutes({ feeds, current: () => SNAPSHOT, token: undefined })],
  });
  let server: ReturnType<typeof app.listen>;
  let base = '';
  beforeAll(async () => {
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.close();
  });
  const get = (path: string, client: string) => fetch(`${base}${path}`, { headers: { 'x-forwarded-for': client } });

  it('answers a third first render of one client 429 at once; other clients wait as ever; rendered feeds are served', async () => {
    expect(FIRST_RENDERS_PER_CLIENT).toBe(2);
    const stranger = '203.0.113.9';
    const waiting = [get('/feeds/U1/products.json', stranger), get('/feeds/U1/products.csv', stranger)];
    await new Promise((resolve) => setTimeout(resolve, 30));

    const third = await get('/feeds/U1/products.csv?profile=excel', stranger);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('5');
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe('TOO_MANY_RENDERS');

    const shop = get('/feeds/U1/products.csv?profile=excel', '198.51.100.20');
    await new Promise((resolve) => setTimeout(resolve, 30));
    held.release();
    const answers = await Promise.all([...waiting, shop]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);

    // Rendered now: the stranger gets it, and as many rendered feeds at once as it likes.
    const again = await Promise.all(
      ['/feeds/U1/products.csv?profile=excel', '/feeds/U1/products.json', '/feeds/U1/products.csv'].map((path) =>
        get(path, stranger),
      ),
    );
    expect(again.map((answer) => answer.status)).toEqual([200, 200, 200]);
  });
});
