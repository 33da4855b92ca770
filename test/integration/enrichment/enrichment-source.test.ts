import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keyv } from 'keyv';
import { MockAgent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEnrichmentSource, redactSheetUrl } from '../../../src/adapters/enrichment/enrichment-source.js';
import { createKeyvEnrichmentStore } from '../../../src/adapters/store/keyv-enrichment-store.js';
import type { CompiledEnrichment } from '../../../src/core/enrichment/compile-enrichment.js';
import type { EnrichmentCheck } from '../../../src/core/enrichment/enrichment-check.js';
import { tableKey, tableValues } from '../../../src/core/enrichment/enrichment-table.js';
import { checkEnrichmentSheet } from '../../../src/services/catalog/enrich-catalog.js';
import type { EnrichmentDocument } from '../../../src/services/enrichment/enrichment-ports.js';
import { createEnrichmentService, type EnrichmentInUse } from '../../../src/services/enrichment/enrichment-service.js';

/**
 * The enrichment sheet read over real HTTP from a local server (and from a file): validators and `304`,
 * a server error, a timeout, a redirect (what a published Google Sheet answers), a body over the limit.
 * The last good sheet stays in use through every failure, and the failure is reported.
 */

const GOOD = 'id;title\n1;Káva\n';
const NEWER = 'id;title\n1;Káva zrnková\n';

interface Reply {
  status: number;
  body?: string;
  etag?: string;
  delayMs?: number;
  location?: string;
}

let server: Server;
let base = '';
let reply: Reply = { status: 200, body: GOOD, etag: '"v1"' };
const requests: IncomingMessage[] = [];

function handle(req: IncomingMessage, res: ServerResponse): void {
  requests.push(req);
  const answer = reply;
  const send = () => {
    if (answer.location !== undefined && req.url?.startsWith('/published') === true) {
      res.writeHead(307, { location: `${base}${answer.location}` }).end();
      return;
    }
    if (answer.etag !== undefined && req.headers['if-none-match'] === answer.etag) {
      res.writeHead(304, { etag: answer.etag }).end();
      return;
    }
    res.writeHead(answer.status, {
      'content-type': 'text/csv; charset=utf-8',
      ...(answer.etag === undefined ? {} : { etag: answer.etag }),
    });
    res.end(answer.body ?? '');
  };
  if (answer.delayMs === undefined) send();
  else setTimeout(send, answer.delayMs).unref();
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

afterEach(() => {
  requests.length = 0;
});

/** The worker's sheet reader, run in this thread: a body like `BROKEN;title` has no key column. */
function check(document: EnrichmentDocument): Promise<CompiledEnrichment> {
  return checkEnrichmentSheet({ bytes: document.bytes, name: document.name, fetchedAt: document.fetchedAt });
}

function quietLogger() {
  const warnings: string[] = [];
  return { warnings, logger: { info: () => {}, warn: (_meta: object, message: string) => void warnings.push(message) } };
}

function serviceFor(location: string, keyv = new Keyv(), timeoutMs = 2_000) {
  const source = createEnrichmentSource(location, { maxBytes: 1024, timeoutMs });
  const { warnings, logger } = quietLogger();
  const service = createEnrichmentService({
    source,
    store: createKeyvEnrichmentStore(keyv, { source: source.identity }),
    check,
    logger,
    now: () => new Date('2026-11-26T08:00:00Z'),
  });
  return { service, source, warnings, keyv };
}

/** The sheet in use, written back as the `id;title` CSV it was read from (its table's one row). */
async function textOf(service: { current(): Promise<EnrichmentInUse | undefined> }): Promise<string | undefined> {
  const sheet = await service.current();
  if (sheet === undefined) return undefined;
  const rows = Array.from({ length: sheet.table.rowCount }, (_, row) => {
    return `${tableKey(sheet.table, row)};${tableValues(sheet.table, row).title ?? ''}\n`;
  });
  return `id;title\n${rows.join('')}`;
}

describe('enrichment sheet over HTTP', () => {
  it('reads it once, then asks with If-None-Match and takes a 304 as unchanged', async () => {
    reply = { status: 200, body: GOOD, etag: '"v1"' };
    const { service, source } = serviceFor(`${base}/sheet.csv`);
    try {
      expect(await service.refresh()).toBe('adopted');
      expect(await service.refresh()).toBe('unchanged');
      expect(requests[1]?.headers['if-none-match']).toBe('"v1"');
      reply = { status: 200, body: NEWER, etag: '"v2"' };
      expect(await service.refresh()).toBe('adopted');
      expect(await textOf(service)).toBe(NEWER);
      expect(service.status().current).toMatchObject({ name: 'sheet.csv', check: { ok: true, rows: 1 } });
    } finally {
      await source.close();
    }
  });

  it('takes a body identical to the last one as unchanged when the server sends no validators', async () => {
    reply = { status: 200, body: GOOD };
    const { service, source } = serviceFor(`${base}/plain.csv`);
    try {
      expect(await service.refresh()).toBe('adopted');
      expect(await service.refresh()).toBe('unchanged');
    } finally {
      await source.close();
    }
  });

  it('keeps the last good sheet through a 500, a timeout, an oversized body and an unusable sheet, and reports each', async () => {
    reply = { status: 200, body: GOOD, etag: '"v1"' };
    const { service, source, warnings } = serviceFor(`${base}/sheet.csv`, new Keyv(), 300);
    try {
      expect(await service.refresh()).toBe('adopted');

      reply = { status: 500, body: 'oops' };
      expect(await service.refresh()).toBe('failed');
      expect(service.status().problem).toMatchObject({ code: 'ENRICHMENT_HTTP_STATUS' });
      expect(service.status().problem?.message).toContain('HTTP 500');
      expect(await textOf(service)).toBe(GOOD);

      reply = { status: 200, body: NEWER, etag: '"v2"', delayMs: 1_000 };
      expect(await service.refresh()).toBe('failed');
      expect(service.status().problem?.code).toBe('ENRICHMENT_TIMEOUT');

      reply = { status: 200, body: 'x'.repeat(2_000), etag: '"big"' };
      expect(await service.refresh()).toBe('failed');
      expect(service.status().problem?.code).toBe('ENRICHMENT_TOO_LARGE');

      reply = { status: 200, body: 'BROKEN;title\n1;x\n', etag: '"v3"' };
      expect(await service.refresh()).toBe('failed');
      expect(service.status().problem).toMatchObject({ code: 'ENRICHMENT_INVALID', check: { ok: false } });
      expect(service.status().problem?.message).toContain('no key column');

      // Through all of it the last good sheet stayed in use, and each problem was logged once.
      expect(await textOf(service)).toBe(GOOD);
      expect(service.status().current?.check.ok).toBe(true);
      expect(warnings).toHaveLength(4);
      expect(warnings.every((warning) => warning.includes('the last good sheet stays in use'))).toBe(true);

      reply = { status: 200, body: NEWER, etag: '"v4"' };
      expect(await service.refresh()).toBe('adopted');
      expect(service.status().problem).toBeUndefined();
    } finally {
      await source.close();
    }
  });

  it('follows the redirect of a published Google Sheet', async () => {
    reply = { status: 200, body: GOOD, location: '/googleusercontent/sheet' };
    const { service, source } = serviceFor(`${base}/published?output=csv`);
    try {
      expect(await service.refresh()).toBe('adopted');
      expect(requests.map((request) => request.url)).toEqual(['/published?output=csv', '/googleusercontent/sheet']);
      expect((await service.current())?.name).toBe('sheet.csv');
    } finally {
      await source.close();
    }
  });

  it('follows no redirect to an internal address, from https to http, or past five hops', async () => {
    // A sheet on the internet (an undici mock: nothing leaves this machine), redirecting where it likes.
    const agent = new MockAgent();
    agent.disableNetConnect();
    const sheets = agent.get('https://sheets.example');
    sheets.intercept({ path: '/to-internal' }).reply(307, '', { headers: { location: `${base}/sheet.csv` } });
    sheets.intercept({ path: '/to-metadata' }).reply(302, '', { headers: { location: 'http://169.254.169.254/latest/' } });
    sheets.intercept({ path: '/downgrade' }).reply(301, '', { headers: { location: 'http://sheets.example/plain.csv' } });
    for (let hop = 0; hop < 6; hop += 1) {
      sheets.intercept({ path: `/loop-${hop}` }).reply(302, '', { headers: { location: `/loop-${hop + 1}` } });
    }
    sheets.intercept({ path: '/published' }).reply(307, '', { headers: { location: 'https://cdn.sheets.example/sheet' } });
    agent
      .get('https://cdn.sheets.example')
      .intercept({ path: '/sheet' })
      .reply(200, GOOD, { headers: { 'content-type': 'text/csv' } });
    const read = (path: string) =>
      createEnrichmentSource(`https://sheets.example${path}`, { maxBytes: 1024, timeoutMs: 2_000, dispatcher: agent }).read(
        undefined,
      );
    try {
      await expect(read('/to-internal')).rejects.toThrow(/redirected to an internal address \(127\.0\.0\.1:\d+\): not followed/);
      await expect(read('/to-metadata')).rejects.toThrow(/redirected to an internal address \(169\.254\.169\.254\)/);
      await expect(read('/downgrade')).rejects.toThrow(/redirected from https to http \(sheets\.example\)/);
      await expect(read('/loop-0')).rejects.toThrow(/redirected more than 5 times/);
      await expect(read('/to-internal')).rejects.toMatchObject({ code: 'ENRICHMENT_UNREACHABLE' });
      // A web page is refused without a word of it: it is no sheet, and it may be nobody's to read.
      sheets.intercept({ path: '/page' }).reply(200, '<!doctype html><title>Intranet: salaries</title>', {
        headers: { 'content-type': 'text/html; charset=utf-8' },
      });
      const page = read('/page');
      await expect(page).rejects.toMatchObject({ code: 'ENRICHMENT_NOT_A_SHEET' });
      await expect(page).rejects.not.toThrow(/salaries|Intranet/);
      // Another host over https is followed: that is what a published Google Sheet does.
      expect(await read('/published')).toMatchObject({ changed: true });
      expect(requests).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });

  it('keeps the last good sheet in the store: a restart (or a new leader) applies it before any read', async () => {
    reply = { status: 200, body: GOOD, etag: '"v1"' };
    const keyv = new Keyv();
    const first = serviceFor(`${base}/sheet.csv`, keyv);
    await first.service.refresh();
    await first.source.close();

    reply = { status: 500 };
    const second = serviceFor(`${base}/sheet.csv`, keyv);
    try {
      await second.service.start();
      expect(await textOf(second.service)).toBe(GOOD);
      expect(requests).toHaveLength(1);
      // Another instance stores a newer sheet: the next sync here picks it up from the store.
      const third = serviceFor(`${base}/sheet.csv`, keyv);
      reply = { status: 200, body: NEWER, etag: '"v2"' };
      await third.service.refresh();
      await third.source.close();
      expect(await textOf(second.service)).toBe(NEWER);
    } finally {
      await second.source.close();
    }
  });

  it('stores a large sheet in slices, loads it back byte for byte, and drops the slices of the sheet it replaced', async () => {
    const map = new Map<string, unknown>();
    const keyv = new Keyv({ store: map });
    const store = createKeyvEnrichmentStore(keyv, { source: 'test' });
    const big = new Uint8Array(1_300_000).map((_, index) => index % 251);
    const document = (bytes: Uint8Array, sha256: string): EnrichmentDocument => ({
      bytes,
      name: 'big.csv',
      validators: { sha256 },
      fetchedAt: '2026-11-26T07:00:00.000Z',
    });
    const check: EnrichmentCheck = { ok: true, rows: 1 };
    await store.save(document(big, 'aaa'), check);
    const loaded = await store.load();
    expect(loaded?.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Buffer.from(loaded?.bytes ?? []).equals(Buffer.from(big))).toBe(true);
    expect((await store.loadMeta())?.slices).toBe(3);

    await store.save(document(new Uint8Array([1, 2, 3]), 'bbb'), check);
    const keys = [...map.keys()].filter((key) => key.includes(':bytes:'));
    expect(keys).toHaveLength(1);
    expect(keys[0]).toContain(':bbb:0');
    expect([...((await store.load())?.bytes ?? [])]).toEqual([1, 2, 3]);
  });

  it('reads once for two refreshes at once, and asks with the fresher ETag of an unchanged body', async () => {
    reply = { status: 200, body: GOOD, etag: '"e1"' };
    const { service, source } = serviceFor(`${base}/sheet.csv`);
    try {
      const outcomes = await Promise.all([service.refresh(), service.refresh()]);
      expect(outcomes).toEqual(['adopted', 'unchanged']);
      // The same body under a new ETag: nothing new, but the next request asks with the new ETag.
      reply = { status: 200, body: GOOD, etag: '"e2"' };
      expect(await service.refresh()).toBe('unchanged');
      expect(await service.refresh()).toBe('unchanged');
      expect(requests.at(-1)?.headers['if-none-match']).toBe('"e2"');
    } finally {
      await source.close();
    }
  });

  it('keeps the last good sheet when the check itself fails, and uses a good sheet the store could not keep', async () => {
    reply = { status: 200, body: GOOD, etag: '"c1"' };
    const keyv = new Keyv();
    const source = createEnrichmentSource(`${base}/sheet.csv`, { maxBytes: 1024, timeoutMs: 2_000 });
    const store = createKeyvEnrichmentStore(keyv, { source: source.identity });
    let checks = 0;
    const { logger, warnings } = quietLogger();
    const service = createEnrichmentService({
      source,
      store: {
        ...store,
        save: async (document, result) => {
          if (checks === 1) throw new Error('the store is full');
          await store.save(document, result);
        },
      },
      check: async (document) => {
        checks += 1;
        if (checks === 2) throw new Error('worker exited');
        return check(document);
      },
      logger,
      now: () => new Date('2026-11-26T08:00:00Z'),
    });
    try {
      expect(await service.refresh()).toBe('adopted');
      expect(warnings).toEqual([expect.stringContaining('could not keep the enrichment sheet in the store')]);
      reply = { status: 200, body: NEWER, etag: '"c2"' };
      expect(await service.refresh()).toBe('failed');
      expect(service.status().problem).toMatchObject({ code: 'ENRICHMENT_INVALID' });
      expect(service.status().problem?.message).toContain('could not be checked (worker exited)');
      expect(await textOf(service)).toBe(GOOD);
    } finally {
      await source.close();
    }
  });

  it('checks a stored sheet again before a sync applies it: one the reader now refuses is not applied', async () => {
    reply = { status: 200, body: GOOD, etag: '"s1"' };
    const keyv = new Keyv();
    const first = serviceFor(`${base}/sheet.csv`, keyv);
    await first.service.refresh();
    await first.source.close();

    const source = createEnrichmentSource(`${base}/sheet.csv`, { maxBytes: 1024, timeoutMs: 2_000 });
    const { logger } = quietLogger();
    const restarted = createEnrichmentService({
      source,
      store: createKeyvEnrichmentStore(keyv, { source: source.identity }),
      check: async () => ({ check: { ok: false, error: 'the sheet has 16 bytes, more than the limit of 8' } }),
      logger,
      now: () => new Date('2026-11-26T08:00:00Z'),
    });
    try {
      await restarted.start();
      expect(restarted.status().current?.name).toBe('sheet.csv');
      expect(await restarted.current()).toBeUndefined();
      expect(restarted.status().problem?.message).toContain('the stored sheet sheet.csv cannot be used');
    } finally {
      await source.close();
    }
  });

  it('reads the sheet in use from the source again, in full, when the store has lost it', async () => {
    reply = { status: 200, body: GOOD, etag: '"l1"' };
    const map = new Map<string, unknown>();
    const keyv = new Keyv({ store: map });
    const first = serviceFor(`${base}/sheet.csv`, keyv);
    await first.service.refresh();
    await first.source.close();
    const restarted = serviceFor(`${base}/sheet.csv`, keyv);
    try {
      await restarted.service.start();
      // An emptied Redis: the instance knows which sheet is in use, the store has nothing.
      map.clear();
      requests.length = 0;
      expect(await textOf(restarted.service)).toBe(GOOD);
      expect(requests).toHaveLength(1);
      expect(requests[0]?.headers['if-none-match']).toBeUndefined();
      expect((await createKeyvEnrichmentStore(keyv, { source: restarted.source.identity }).load())?.name).toBe('sheet.csv');
    } finally {
      await restarted.source.close();
    }
  });

  it('fails the sync rather than apply no sheet when the sheet in use cannot be read now', async () => {
    reply = { status: 200, body: GOOD, etag: '"u1"' };
    const map = new Map<string, unknown>();
    const keyv = new Keyv({ store: map });
    const first = serviceFor(`${base}/sheet.csv`, keyv);
    await first.service.refresh();
    await first.source.close();
    const source = createEnrichmentSource(`${base}/sheet.csv`, { maxBytes: 1024, timeoutMs: 2_000 });
    const crashing = createEnrichmentService({
      source,
      store: createKeyvEnrichmentStore(keyv, { source: source.identity }),
      check: async () => {
        throw new Error('worker exited');
      },
      logger: quietLogger().logger,
      now: () => new Date('2026-11-26T08:00:00Z'),
    });
    try {
      await crashing.start();
      await expect(crashing.current()).rejects.toMatchObject({ code: 'ENRICHMENT_UNAVAILABLE' });
      // The store lost it and the source is down: still no sync without the sheet.
      map.clear();
      reply = { status: 503 };
      await expect(crashing.current()).rejects.toMatchObject({
        code: 'ENRICHMENT_UNAVAILABLE',
        message: expect.stringContaining('no longer in the store'),
      });
    } finally {
      await source.close();
    }
  });

  it("lets an instance that never reads the sheet (a follower) show the reader's sheet and problem", async () => {
    reply = { status: 200, body: GOOD, etag: '"f1"' };
    const keyv = new Keyv();
    const leader = serviceFor(`${base}/sheet.csv`, keyv);
    const follower = serviceFor(`${base}/sheet.csv`, keyv);
    try {
      await follower.service.start();
      expect(follower.service.status().current).toBeUndefined();
      await leader.service.refresh();
      reply = { status: 503 };
      await leader.service.refresh();
      await follower.service.follow();
      expect(follower.service.status()).toMatchObject({
        current: { name: 'sheet.csv', check: { ok: true } },
        problem: { code: 'ENRICHMENT_HTTP_STATUS' },
        lastCheckAt: '2026-11-26T08:00:00.000Z',
      });
      // Its bytes are loaded only when it needs them (were it to lead and sync).
      expect(await textOf(follower.service)).toBe(GOOD);
    } finally {
      await leader.source.close();
      await follower.source.close();
    }
  });

  it('tells two published sheets apart although their redacted labels read the same', () => {
    const one = createEnrichmentSource('https://docs.google.com/spreadsheets/d/e/2PACX-1vAAAAAAAAAAAAAAAA/pub?output=csv', {
      maxBytes: 1,
      timeoutMs: 1,
    });
    const two = createEnrichmentSource('https://docs.google.com/spreadsheets/d/e/2PACX-1vBBBBBBBBBBBBBBBB/pub?output=csv', {
      maxBytes: 1,
      timeoutMs: 1,
    });
    expect(one.label).toBe(two.label);
    expect(one.identity).not.toBe(two.identity);
  });

  it('never shows a published sheet URL whole in logs or pages', () => {
    const label = redactSheetUrl(
      'https://user:pw@docs.google.com/spreadsheets/d/e/2PACX-1vQ3xYzLongSecretId/pub?gid=0&output=csv',
    );
    expect(label).toBe('https://docs.google.com/spreadsheets/d/e/2PACX-…/pub?gid=…&output=…');
  });
});

describe('enrichment sheet from a file', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'enrichment-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('re-reads it only when its size or time changes, and reports a missing file', async () => {
    const path = join(dir, 'sheet.csv');
    await writeFile(path, GOOD);
    const { service, source } = serviceFor(path);
    expect(await service.refresh()).toBe('adopted');
    expect(await service.refresh()).toBe('unchanged');
    await writeFile(path, NEWER);
    await utimes(path, new Date(), new Date(Date.now() + 5_000));
    expect(await service.refresh()).toBe('adopted');
    expect(await textOf(service)).toBe(NEWER);
    await rm(path);
    expect(await service.refresh()).toBe('failed');
    expect(service.status().problem?.code).toBe('ENRICHMENT_NOT_FOUND');
    expect(await textOf(service)).toBe(NEWER);
    await source.close();
  });
});
