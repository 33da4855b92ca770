import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { sendFeed } from '../../../src/http/send-feed.js';
import { encodeBody, encodedFeed } from '../../../src/services/feeds/encoded-feed.js';

const lastModified = new Date('2026-11-22T10:00:00.500Z');
const text = `<?xml version="1.0"?><rss>${'<item>Káva &amp; čaj</item>'.repeat(200)}</rss>`;
const feed = {
  ...encodedFeed(await encodeBody(Buffer.from(text)), {
    key: 'feed.xml',
    version: 'v-1',
    lastModified,
    contentType: 'application/xml; charset=utf-8',
  }),
  tag: 'v-1-abc',
};

const app = express();
app.get('/feed.xml', (req, res) => sendFeed(req, res, feed, { private: false }));

function binary(res: request.Response, done: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}

describe('http/send-feed', () => {
  it('sends the identity body with validators, length and version', async () => {
    const res = await request(app).get('/feed.xml').set('accept-encoding', 'identity').buffer(true).parse(binary);

    expect(res.status).toBe(200);
    expect((res.body as Buffer).toString()).toBe(text);
    expect(res.headers['etag']).toBe('"v-1-abc"');
    expect(res.headers['last-modified']).toBe('Sun, 22 Nov 2026 10:00:00 GMT');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(text)));
    expect(res.headers['x-catalog-version']).toBe('v-1');
    expect(res.headers['cache-control']).toBe('public, no-cache');
    expect(res.headers['vary']).toBe('Accept-Encoding');
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  it.each([
    ['gzip', gunzipSync],
    ['br', brotliDecompressSync],
  ] as const)('sends a %s body that decodes to the same bytes, with its own strong ETag', async (coding, decode) => {
    // supertest decodes the body on the way in, so the wire bytes are checked on the cached feed.
    const res = await request(app).get('/feed.xml').set('accept-encoding', coding).buffer(true).parse(binary);

    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(coding);
    expect(res.headers['etag']).toBe(`"v-1-abc-${coding}"`);
    expect((res.body as Buffer).toString()).toBe(text);
    expect(Number(res.headers['content-length'])).toBe(feed[coding]?.length);
    expect(decode(feed[coding] ?? Buffer.alloc(0)).toString()).toBe(text);
  });

  it.each(['"v-1-abc"', '"v-1-abc-gzip"', 'W/"v-1-abc-br"', '"other", "v-1-abc"', '*'])(
    'answers 304 for If-None-Match %s',
    async (tag) => {
      const res = await request(app).get('/feed.xml').set('accept-encoding', 'gzip').set('if-none-match', tag);

      expect(res.status).toBe(304);
      expect(res.headers['etag']).toBe('"v-1-abc-gzip"');
      expect(res.headers['x-catalog-version']).toBe('v-1');
      expect(res.text).toBe('');
    },
  );

  it('answers 200 for a stale ETag even when If-Modified-Since would match', async () => {
    const res = await request(app)
      .get('/feed.xml')
      .set('if-none-match', '"v-0-abc"')
      .set('if-modified-since', 'Sun, 22 Nov 2026 11:00:00 GMT');

    expect(res.status).toBe(200);
  });

  it.each([
    ['Sun, 22 Nov 2026 10:00:00 GMT', 304],
    ['Sun, 22 Nov 2026 12:00:00 GMT', 304],
    ['Sun, 22 Nov 2026 09:59:59 GMT', 200],
    ['not a date', 200],
  ])('If-Modified-Since %s → %i', async (since, status) => {
    const res = await request(app).get('/feed.xml').set('if-modified-since', since);

    expect(res.status).toBe(status);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const res = await request(app).head('/feed.xml').set('accept-encoding', 'gzip');

    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(feed.gzip?.length));
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.text ?? '').toBe('');
  });

  it('answers 406 when no coding is acceptable', async () => {
    const res = await request(app).get('/feed.xml').set('accept-encoding', 'identity;q=0');

    expect(res.status).toBe(406);
    expect(res.body).toEqual({
      error: { code: 'NOT_ACCEPTABLE', message: 'No acceptable content coding (br, gzip or identity)' },
    });
  });
});

const zipped = Buffer.from('PK\u0003\u0004 a zip body that gzip would not shrink');
const workbook = encodedFeed(await encodeBody(zipped, false), {
  key: 'products.xlsx|all|',
  version: 'v-2',
  lastModified,
  contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  fileName: 'products-all.xlsx',
});
const workbookApp = express();
workbookApp.get('/products.xlsx', (req, res) => sendFeed(req, res, workbook, { private: false }));

describe('http/send-feed: a body compressed already (the workbook)', () => {
  it('keeps no gzip or br form of it', () => {
    expect(workbook.gzip).toBeUndefined();
    expect(workbook.br).toBeUndefined();
  });

  it.each(['gzip, deflate, br', 'br', 'gzip', 'identity', '*'])(
    'sends it as it is for Accept-Encoding %s, with its length, ETag and file name',
    async (acceptEncoding) => {
      const res = await request(workbookApp)
        .get('/products.xlsx')
        .set('accept-encoding', acceptEncoding)
        .buffer(true)
        .parse(binary);

      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect((res.body as Buffer).equals(zipped)).toBe(true);
      expect(res.headers['content-length']).toBe(String(zipped.length));
      expect(res.headers['etag']).toBe(`"${workbook.tag}"`);
      expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      expect(res.headers['content-disposition']).toBe('inline; filename="products-all.xlsx"');
    },
  );

  it('answers 304 for its ETag and HEAD with the headers of GET', async () => {
    const etag = `"${workbook.tag}"`;
    const notModified = await request(workbookApp)
      .get('/products.xlsx')
      .set('accept-encoding', 'gzip')
      .set('if-none-match', etag);
    const head = await request(workbookApp).head('/products.xlsx').set('accept-encoding', 'gzip, br');

    expect(notModified.status).toBe(304);
    expect(notModified.headers['etag']).toBe(etag);
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(zipped.length));
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.text ?? '').toBe('');
  });

  it('answers 406, naming identity, when the client refuses identity', async () => {
    const res = await request(workbookApp).get('/products.xlsx').set('accept-encoding', 'gzip, identity;q=0');

    expect(res.status).toBe(406);
    expect(res.body.error.message).toContain('identity');
  });
});
