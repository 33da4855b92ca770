import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import express from 'express';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { sendFeed } from '../../../src/http/send-feed.js';
import { type EncodedFeed, encodeBody, encodedFeed } from '../../../src/services/feeds/encoded-feed.js';

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

  it('keeps no identity body, and answers identity with exactly the gunzip of its gzip form', async () => {
    const res = await request(app)
      .get('/feed.xml')
      .set('accept-encoding', 'gzip;q=0, br;q=0, identity')
      .buffer(true)
      .parse(binary);

    expect(feed.identity).toBeUndefined();
    expect(feed.identityLength).toBe(Buffer.byteLength(text));
    expect(res.status).toBe(200);
    expect((res.body as Buffer).equals(gunzipSync(feed.gzip ?? Buffer.alloc(0)))).toBe(true);
    expect(res.headers['content-length']).toBe(String(feed.identityLength));
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['etag']).toBe('"v-1-abc"');
  });

  it('answers HEAD for identity with its length and no body', async () => {
    const res = await request(app).head('/feed.xml').set('accept-encoding', 'identity');

    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(text)));
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['etag']).toBe('"v-1-abc"');
    expect(res.text ?? '').toBe('');
  });

  it.each([
    ['if-none-match', '"v-1-abc"'],
    ['if-modified-since', 'Sun, 22 Nov 2026 10:00:00 GMT'],
  ])('answers 304 to an identity request with %s, with the identity validators', async (name, value) => {
    const res = await request(app).get('/feed.xml').set('accept-encoding', 'identity').set(name, value);

    expect(res.status).toBe(304);
    expect(res.headers['etag']).toBe('"v-1-abc"');
    expect(res.headers['last-modified']).toBe('Sun, 22 Nov 2026 10:00:00 GMT');
    expect(res.headers['vary']).toBe('Accept-Encoding');
    expect(res.headers['cache-control']).toBe('public, no-cache');
    expect(res.text).toBe('');
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

/** A body of 64 MiB that compresses to almost nothing: inflating it to a client takes many chunks. */
const large: EncodedFeed = encodedFeed(await encodeBody(Buffer.alloc(64 * 1024 * 1024, '<item>Káva</item>\n')), {
  key: 'large.xml',
  version: 'v-3',
  lastModified,
  contentType: 'application/xml; charset=utf-8',
});
/** Per response: whether it ended whole (`writableFinished`) once it closed. */
const outcomes: Promise<boolean>[] = [];
const server = createServer((req, res) => {
  outcomes.push(new Promise((resolve) => res.once('close', () => resolve(res.writableFinished))));
  sendFeed(req, res, large, { private: false });
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const port = (server.address() as AddressInfo).port;
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** An identity GET to the large feed, once its headers are in. */
async function identityGet(
  headers: Record<string, string> = { 'accept-encoding': 'identity' },
): Promise<{ readonly req: ReturnType<typeof httpRequest>; readonly res: IncomingMessage }> {
  const req = httpRequest({ host: '127.0.0.1', port, path: '/large.xml', headers });
  req.end();
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  return { req, res };
}

describe('http/send-feed: a large identity body, inflated as it is sent', () => {
  it('sends every byte, in many chunks, with the stored length, to a client that names no coding', async () => {
    const { res } = await identityGet({});
    let bytes = 0;
    let chunks = 0;
    let intact = true;
    const line = Buffer.from('<item>Káva</item>\n');
    res.on('data', (chunk: Buffer) => {
      // Every chunk is a run of the repeated line, continuing where the previous one ended.
      for (let i = 0; i < chunk.length; i += 4099) intact &&= chunk[i] === line[(bytes + i) % line.length];
      bytes += chunk.length;
      chunks += 1;
    });
    await once(res, 'end');

    expect(res.headers['content-length']).toBe(String(64 * 1024 * 1024));
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['etag']).toBe(`"${large.tag}"`);
    expect(bytes).toBe(64 * 1024 * 1024);
    expect(intact).toBe(true);
    expect(chunks).toBeGreaterThan(10);
    expect(await outcomes.at(-1)).toBe(true);
  });

  it('stops inflating when the client goes away mid-body, without an error, and serves the next client', async () => {
    const { req, res } = await identityGet();
    await once(res, 'data');
    req.destroy();

    // The server's response closed before its end: the pipeline was torn down, not left running.
    expect(await outcomes.at(-1)).toBe(false);
    const next = await identityGet();
    let bytes = 0;
    next.res.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    await once(next.res, 'end');
    expect(bytes).toBe(64 * 1024 * 1024);
  });
});
