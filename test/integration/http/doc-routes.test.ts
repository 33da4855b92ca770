import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../../src/app/start-app.js';
import { createTestConfig } from '../../helpers/test-config.js';
import { codeOf, DOC_ROOT, documentFiles } from '../../unit/docs/doc-files.js';

/**
 * Every route of the bridge the documents name answers on a running bridge (sandbox POS): a request to it
 * never gets the bridge's "no such route" (`404 NOT_FOUND`), and a feed, page or schema never a 404 at all. Routes are the paths in code spans and blocks
 * under the bridge's own roots; a `{placeholder}` is filled with a real unit, product, sync run or page,
 * paths with `…` or `*` are patterns. The other paths the documents name (the POS's, Shoptet's, Meta's,
 * files on a server) are not the bridge's and are left alone.
 */

const ADMIN = 'admin-token-of-the-docs-test';
const SANDBOX_KEY = 'sandbox-key-of-the-docs-test';
/** The first path segments of the bridge's routes. */
const ROOTS = [
  '',
  'feeds',
  'api',
  'admin',
  'docs',
  'healthz',
  'readyz',
  'metrics',
  'products',
  'syncs',
  'warnings',
  'fetches',
  'schemas',
  'webhooks',
  'sandbox',
] as const;
/** Paths under those roots that are another system's (Shoptet's `/api/stocks`, the POS's `/api/ext/…`). */
const FOREIGN = [/^\/api\/stocks\b/, /^\/api\/ext\//];
/** Feeds of the custom templates docs/custom-feeds.md builds, and a 404 the documents show on purpose. */
const NOT_SHIPPED = new Set(['/feeds/all/price-check.xml', '/feeds/all/store-stock.csv', '/feeds/x1/junk1.xml']);
/** Where a 404 of any kind means the documents name what is not there (a feed file, a page, a schema). */
const STRICT = /^\/(?:feeds|docs|schemas)\//;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH']);

interface DocRoute {
  /** The method the document names; `undefined` when it names the path alone (any method will do). */
  readonly method: string | undefined;
  readonly path: string;
  readonly file: string;
}

async function documentedRoutes(): Promise<DocRoute[]> {
  const routes = new Map<string, DocRoute>();
  for (const file of await documentFiles()) {
    // Decisions tell history (routes since renamed); the folder READMEs name source paths.
    if (file.startsWith('docs/decisions/') || /^(src|test)\//.test(file)) continue;
    const code = codeOf(await readFile(join(DOC_ROOT, file), 'utf8')).join('\n');
    for (const match of code.matchAll(/(?:\b([A-Z]{3,6})[ \t]+)?(?<![\w.:/~$@-])(\/[A-Za-z0-9_.{}:…*\-/]*)/g)) {
      const path = (match[2] ?? '').replace(/[.:]$/, '');
      const method = match[1] !== undefined && METHODS.has(match[1]) ? match[1] : undefined;
      const root = path.split('/')[1] ?? '';
      if (!(ROOTS as readonly string[]).includes(root) || /[…*]|\.\.\./.test(path)) continue;
      if (FOREIGN.some((pattern) => pattern.test(path)) || NOT_SHIPPED.has(path)) continue;
      if (root === '' && path !== '/') continue;
      routes.set(`${method ?? 'ANY'} ${path}`, { method, path, file });
    }
  }
  return [...routes.values()];
}

describe('routes the documents name', () => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp(
      createTestConfig({
        SANDBOX_ARTICLES: '40',
        SANDBOX_UNITS: '2',
        SANDBOX_SALES_PER_MINUTE: '0',
        ADMIN_TOKEN: ADMIN,
        SANDBOX_API_KEY: SANDBOX_KEY,
      }),
      { logger: pino({ level: 'silent' }) },
    );
    await app.initialSync;
  });
  afterAll(async () => {
    await app?.stop();
  });

  /** The path with its placeholders filled with what this bridge has. */
  async function concrete(path: string): Promise<string | undefined> {
    const snapshot = app.catalog.current();
    const product = snapshot?.products[0]?.id;
    const [run] = await app.catalog.syncHistory('sync-catalog');
    const values: Record<string, string | undefined> = {
      unit: 'all',
      view: 'all',
      file: 'products.json',
      id: product,
      runId: run?.runId,
      page: 'going-live',
      channel: 'google',
    };
    let unknown = false;
    const filled = path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
      const value = values[name];
      if (value === undefined) unknown = true;
      return encodeURIComponent(value ?? '');
    });
    return unknown ? undefined : filled;
  }

  /** Whether `method path` reaches a route: the bridge's (or for `/sandbox/…` the sandbox POS's) own. */
  async function routed(method: string, path: string): Promise<boolean> {
    const sandbox = path.startsWith('/sandbox/');
    const base = sandbox ? app.posUrl : app.url;
    const token = path.startsWith('/admin') ? ADMIN : 'none';
    const response = await request(`${base}${path}`, {
      method: method as 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        'x-api-key': SANDBOX_KEY,
        accept: 'application/json',
        ...(method === 'POST' || method === 'PUT' ? { 'content-type': 'application/json' } : {}),
      },
      ...(method === 'POST' || method === 'PUT' ? { body: '{}' } : {}),
    });
    const text = method === 'HEAD' ? '' : await response.body.text();
    if (response.statusCode !== 404) return true;
    // The sandbox answers an unknown path 404 whatever it is; the bridge names its "no such route".
    return !sandbox && !text.includes('"NOT_FOUND"') && !STRICT.test(path);
  }

  it('finds the routes (the scan works)', async () => {
    const routes = await documentedRoutes();
    const named = new Set(routes.map((route) => `${route.method ?? 'ANY'} ${route.path}`));
    for (const route of ['ANY /healthz', 'GET /readyz', 'ANY /feeds/all/google.xml', 'POST /webhooks/pos']) {
      expect(named).toContain(route);
    }
  });

  it('answer on a running bridge (never the "no such route" 404)', async () => {
    const missing: string[] = [];
    for (const route of await documentedRoutes()) {
      const path = await concrete(route.path);
      if (path === undefined) {
        missing.push(`${route.file}: ${route.method} ${route.path} (a placeholder this test cannot fill)`);
        continue;
      }
      const methods = route.method === undefined ? ['GET', 'POST'] : [route.method];
      const answers = await Promise.all(methods.map((method) => routed(method, path)));
      if (!answers.some(Boolean)) missing.push(`${route.file}: ${route.method ?? 'GET or POST'} ${route.path}`);
    }
    expect(missing).toEqual([]);
  });
});
