import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, CRON_FORM, STOCK_COLUMN_FIELDS } from '../../../src/config/config-schema.js';
import { ConfigError, loadConfig } from '../../../src/config/load-config.js';
import { renderEnvExample } from '../../../src/config/render-env-example.js';
import { STOCK_COLUMNS } from '../../../src/core/catalog/pos-documents.js';

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('config/load-config', () => {
  it('gives the documented defaults for an empty environment (sandbox mode)', () => {
    const config = loadConfig({});

    expect(config.pos.baseUrl).toBeUndefined();
    expect(config.pos.unitIdentifier).toBe('localId');
    expect(config.pos.stockExportType).toBe('csv');
    expect(config.pos.exportPathPrefix).toBe('');
    expect(config.http).toEqual({ host: '0.0.0.0', port: 3000, publicBaseUrl: undefined, shutdownGraceMs: 25_000 });
    expect(config.store.url).toBe('sqlite://data/catalog.sqlite');
    expect(config.sync.catalogCron).toBe('*/15 * * * *');
    expect(config.sync.stockCron).toBe('*/5 * * * *');
    expect(config.sync.timezone).toBe('UTC');
    expect(config.sync.maxShrink).toBe(0.5);
    expect(config.sync.deadlineMs).toBe(600_000);
    expect(config.sync.documentThreads).toBe('auto');
    expect(config.sync.unknownStockAvailability).toBe('out_of_stock');
    expect(config.feed.currency).toBe('CZK');
    expect(config.feed.token).toBeUndefined();
    expect(config.logLevel).toBe('info');
    // In sandbox mode the webhook key is the sandbox's own key, from this machine only (it is well known).
    expect(config.webhook.apiKeys).toEqual([]);
    expect(config.webhook.loopbackApiKeys).toEqual([config.sandbox.apiKey]);
  });

  it('reads a real POS configuration', () => {
    const config = loadConfig({
      POS_BASE_URL: 'https://api.example.test/ext/',
      POS_API_KEY: 'k-123-of-the-pos',
      POS_EXPORT_PATH_PREFIX: '/ext',
      POS_UNIT_IDENTIFIER: 'code',
      POS_PAGE_SIZE: '200',
      WEBHOOK_API_KEY_PREVIOUS: 'old-key-of-the-pos',
      UNIT_STORE_CODES: 'U1=praha-1, U2 = brno',
      POS_STOCK_COLUMNS: 'code=Kód,quantity=Množství',
    });

    expect(config.pos.baseUrl).toBe('https://api.example.test/ext');
    expect(config.pos.pageSize).toBe(200);
    expect(config.pos.unitIdentifier).toBe('code');
    expect(config.webhook.apiKeys).toEqual(['k-123-of-the-pos', 'old-key-of-the-pos']);
    expect(config.feed.unitStoreCodes).toEqual({ U1: 'praha-1', U2: 'brno' });
    expect(config.pos.stockColumns).toEqual({ code: 'Kód', quantity: 'Množství' });
  });

  it('treats empty values as unset', () => {
    const config = loadConfig({ FEED_TOKEN: '', PORT: ' ', POS_BASE_URL: '' });

    expect(config.feed.token).toBeUndefined();
    expect(config.http.port).toBe(3000);
    expect(config.pos.baseUrl).toBeUndefined();
  });

  it('reports every problem at once, one line each naming the variable', () => {
    const problems = problemsOf({
      POS_BASE_URL: 'not a url',
      PORT: 'eighty',
      CATALOG_SYNC_CRON: '61 * * * *',
      SYNC_TIMEZONE: 'Mars/Olympus',
      STORE_URL: 'postgres://x',
      FEED_CURRENCY: 'koruna',
      SYNC_MAX_SHRINK: '1.5',
      LOG_LEVEL: 'loud',
      UNIT_STORE_CODES: 'U1',
      FEED_TOKEN: 'short',
    });

    const names = problems.map((line) => line.split(':')[0]);
    expect(names.sort()).toEqual(
      [
        'CATALOG_SYNC_CRON',
        'FEED_CURRENCY',
        'FEED_TOKEN',
        'LOG_LEVEL',
        'PORT',
        'POS_API_KEY',
        'POS_BASE_URL',
        'STORE_URL',
        'SYNC_MAX_SHRINK',
        'SYNC_TIMEZONE',
        'UNIT_STORE_CODES',
      ].sort(),
    );
    for (const line of problems) expect(line).not.toContain('\n');
    expect(problems).toContain('PORT: "eighty" is not a number');
    expect(problems.find((line) => line.startsWith('CATALOG_SYNC_CRON'))).toMatch(/^CATALOG_SYNC_CRON: "61 \* \* \* \*" is not/);
    expect(problems).toContain('SYNC_TIMEZONE: is not an IANA time zone');
  });

  it('echoes an invalid cron expression and shows the accepted form with an example', () => {
    const problems = problemsOf({ CATALOG_SYNC_CRON: 'every 15 minutes', STOCK_SYNC_CRON: '*/5 * * *' });

    expect(problems).toEqual([
      `CATALOG_SYNC_CRON: "every 15 minutes" is not a valid cron expression; expected ${CRON_FORM}`,
      `STOCK_SYNC_CRON: "*/5 * * *" is not a valid cron expression; expected ${CRON_FORM}`,
    ]);
    expect(CRON_FORM).toContain('minute hour day-of-month month day-of-week');
    expect(CRON_FORM).toContain('"*/15 * * * *"');
  });

  it('accepts the forms the cron message offers, with and without a seconds field', () => {
    for (const example of ['*/15 * * * *', '30 2 * * *', '0 */15 * * * *']) {
      expect(loadConfig({ CATALOG_SYNC_CRON: example }).sync.catalogCron).toBe(example);
    }
  });

  it('chooses the log format with LOG_FORMAT: auto by default, json or pretty', () => {
    expect(loadConfig({}).logFormat).toBe('auto');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(problemsOf({ LOG_FORMAT: 'fancy' })[0]).toMatch(/^LOG_FORMAT: .*"auto"\|"json"\|"pretty"/);
  });

  it('names a misspelt setting instead of ignoring it', () => {
    expect(problemsOf({ POS_BASEURL: 'https://pos.example.test', FEED_TOKN: 'x' })).toEqual([
      'POS_BASEURL: is not a known setting (did you mean POS_BASE_URL?)',
      'FEED_TOKN: is not a known setting (did you mean FEED_TOKEN?)',
    ]);
  });

  it("accepts the sandbox's own webhook key in sandbox mode, and not a POS_API_KEY left for the real POS", () => {
    const left = loadConfig({ POS_API_KEY: 'real-pos-key' }).webhook;
    expect(left).toMatchObject({ apiKeys: [], loopbackApiKeys: ['sandbox-key'] });
    // A WEBHOOK_API_KEY someone set is honoured beside it, from anywhere: the sandbox still sends its own.
    const set = loadConfig({
      POS_API_KEY: 'real-pos-key',
      WEBHOOK_API_KEY: 'hook-key',
      WEBHOOK_API_KEY_PREVIOUS: 'old-key-of-the-pos',
    });
    expect(set.webhook).toMatchObject({ apiKeys: ['hook-key', 'old-key-of-the-pos'], loopbackApiKeys: ['sandbox-key'] });
    expect(loadConfig({ WEBHOOK_API_KEY: 'sandbox-key' }).webhook).toMatchObject({
      apiKeys: ['sandbox-key'],
      loopbackApiKeys: [],
    });
  });

  it('refuses a POS_API_KEY under 8 characters while it is the webhook key too, and only then', () => {
    const pos = { POS_BASE_URL: 'https://pos.example.test' };
    expect(problemsOf({ ...pos, POS_API_KEY: 'short' })).toEqual([
      expect.stringMatching(/^POS_API_KEY: is also the webhook key while WEBHOOK_API_KEY is unset, and must then be at least 8/),
    ]);
    expect(loadConfig({ ...pos, POS_API_KEY: 'short', WEBHOOK_API_KEY: 'hook-key-of-its-own' }).pos.apiKey).toBe('short');
    // In sandbox mode the key is not used at all.
    expect(loadConfig({ POS_API_KEY: 'x' }).pos.apiKey).toBe('x');
  });

  it('requires POS_API_KEY with POS_BASE_URL', () => {
    expect(problemsOf({ POS_BASE_URL: 'https://pos.example.test' })).toEqual([
      'POS_API_KEY: is required when POS_BASE_URL is set',
    ]);
  });

  it.each([
    ['POS_UNIT_IDENTIFIER', 'id'],
    ['POS_PAGE_SIZE', '0'],
    ['POS_PAGE_SIZE', '2.5'],
    ['POS_TIMEOUT_MS', '-1'],
    ['POS_EXPORT_PATH_PREFIX', 'ext/'],
    ['POS_STOCK_EXPORT_TYPE', 'csv/../x'],
    ['UNKNOWN_STOCK_AVAILABILITY', 'maybe'],
    ['PUBLIC_BASE_URL', 'example'],
    ['WEBHOOK_API_KEY', 'k'],
    ['METRICS_TOKEN', 'too-short'],
    ['TRUST_PROXY', 'yes'],
    ['POS_PRICE_LIST_EXPORT', 'shoptet'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', 'loopback,proxy.example'],
    ['FEED_PRODUCT_URL', 'shop.example/p/{id}'],
    ['FEED_PRODUCT_URL', 'https://shop.example/p/{sku}'],
    ['FEED_IMAGE_URL', 'ftp://img.example/{id}.png'],
    ['SYNC_DOCUMENT_THREADS', '3'],
    ['SYNC_DOCUMENT_THREADS', 'two'],
  ])('rejects %s=%s', (name, value) => {
    const problems = problemsOf({ [name]: value });

    expect(problems).toHaveLength(1);
    expect(problems[0]?.startsWith(`${name}: `)).toBe(true);
  });

  it('reads SYNC_DOCUMENT_THREADS as 1, 2 or auto', () => {
    expect(loadConfig({ SYNC_DOCUMENT_THREADS: '1' }).sync.documentThreads).toBe(1);
    expect(loadConfig({ SYNC_DOCUMENT_THREADS: '2' }).sync.documentThreads).toBe(2);
    expect(loadConfig({ SYNC_DOCUMENT_THREADS: 'auto' }).sync.documentThreads).toBe('auto');
  });

  it('reads TRUST_PROXY as a number of proxies or as addresses, subnets and names', () => {
    expect(loadConfig({}).http.trustProxy).toBeUndefined();
    expect(loadConfig({ TRUST_PROXY: '1' }).http.trustProxy).toBe(1);
    const list = 'loopback, 10.0.0.0/8, 192.0.2.7, fd00::/8';
    expect(loadConfig({ TRUST_PROXY: list }).http.trustProxy).toBe(list);
  });

  it('accepts exactly the stock export fields in POS_STOCK_COLUMNS', () => {
    expect([...STOCK_COLUMN_FIELDS]).toEqual([...STOCK_COLUMNS]);
    expect(problemsOf({ POS_STOCK_COLUMNS: 'sku=Kód' })).toEqual([
      'POS_STOCK_COLUMNS: may only name the fields code, plu, ean, name, quantity, measureUnit, unit',
    ]);
  });

  it('reads UNIT_STOCK_BUFFER: pieces kept back per unit, * for the units not named', () => {
    expect(loadConfig({}).feed.unitStockBuffers).toEqual({});
    expect(loadConfig({ UNIT_STOCK_BUFFER: 'U1=2, U2=0,*=1,U3=0.5' }).feed.unitStockBuffers).toEqual({
      U1: 2,
      U2: 0,
      '*': 1,
      U3: 0.5,
    });
  });

  it('names each invalid UNIT_STOCK_BUFFER entry', () => {
    expect(problemsOf({ UNIT_STOCK_BUFFER: 'U1=-2,U2=two,*=1' })).toEqual([
      'UNIT_STOCK_BUFFER: entry "U1=-2": the buffer must be a non-negative number of pieces',
      'UNIT_STOCK_BUFFER: entry "U2=two": the buffer must be a non-negative number of pieces',
    ]);
    expect(problemsOf({ UNIT_STOCK_BUFFER: 'U1' })).toEqual(['UNIT_STOCK_BUFFER: entry "U1" is not of the form KEY=VALUE']);
    expect(problemsOf({ UNIT_STOCK_BUFER: '*=1' })).toEqual([
      'UNIT_STOCK_BUFER: is not a known setting (did you mean UNIT_STOCK_BUFFER?)',
    ]);
  });

  it('reads FEED_STOCK_POLICY: per feed, keys over the template policy', () => {
    expect(loadConfig({}).feed.stockPolicies).toEqual({});
    const config = loadConfig({ FEED_STOCK_POLICY: 'google:buffer=1,limitedBelow=3;heureka:outOfStock=omit' });
    expect(config.feed.stockPolicies).toEqual({ google: { buffer: 1, limitedBelow: 3 }, heureka: { outOfStock: 'omit' } });
    expect(Object.isFrozen(config.feed.stockPolicies['google'])).toBe(true);
  });

  it('names the feed and the key of each FEED_STOCK_POLICY problem, with the other problems', () => {
    expect(
      problemsOf({ FEED_STOCK_POLICY: 'google:bufer=1,outOfStockBelow=0;heureka:outOfStock=hide;zbozi', PORT: 'x' }),
    ).toEqual([
      'PORT: "x" is not a number',
      'FEED_STOCK_POLICY: feed "google": unknown key "bufer" (known: buffer, outOfStockBelow, limitedBelow, outOfStock)',
      'FEED_STOCK_POLICY: feed "google": outOfStockBelow must be a whole number of pieces, at least 1, got "0"',
      'FEED_STOCK_POLICY: feed "heureka": outOfStock must be list or omit, got "hide"',
      'FEED_STOCK_POLICY: "zbozi" is not of the form FEED:key=value,key=value (e.g. google:buffer=1,outOfStockBelow=2)',
    ]);
  });

  it('returns a frozen configuration', () => {
    const config = loadConfig({});

    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.pos)).toBe(true);
    expect(Object.isFrozen(config.feed.unitStoreCodes)).toBe(true);
  });

  it('documents every variable in the README', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

    for (const name of CONFIG_VARIABLES) expect(readme, name).toContain(`\`${name}\``);
  });

  it('keeps .env.example in step with the schema', () => {
    const committed = readFileSync(new URL('../../../.env.example', import.meta.url), 'utf8');

    expect(committed).toBe(renderEnvExample());
    for (const name of CONFIG_VARIABLES) expect(committed).toContain(`# ${name}=`);
  });
});
