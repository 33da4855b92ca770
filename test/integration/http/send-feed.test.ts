import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, truncateSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import express from 'express';
import request from 'supertest';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type WrittenForm, writeFeedBody } from '../../../src/adapters/feed-files/write-feed-body.js';
import { sendFeed } from '../../../src/http/send-feed.js';
import { type EncodedFeed, encodeBody, encodedFeed } from '../../../src/services/feeds/encoded-feed.js';
import { waitFor } from '../../helpers/wait-for.js';

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
    // A browser must not read a feed as another type than it is sent as.
    expect(res.headers['x-content-type-options']).toBe('nosniff');
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

  it('keeps the identity body beside the compressed ones, and answers identity with it (nothing inflated per request)', async () => {
    const res = await request(app)
      .get('/feed.xml')
      .set('accept-encoding', 'gzip;q=0, br;q=0, identity')
      .buffer(true)
      .parse(binary);

    expect(feed.identity?.toString()).toBe(text);
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

const filesDir = mkdtempSync(join(tmpdir(), 'send-feed-'));
afterAll(() => rmSync(filesDir, { recursive: true, force: true }));
const LARGE_BYTES = 64 * 1024 * 1024;
const LINE = Buffer.from('<item>Káva</item>\n');

/** A feed written to files by the renderer's own writer: `body`'s identity, gzip and br forms. */
async function fileFeed(key: string, version: string, body: Buffer, compress = true): Promise<EncodedFeed> {
  const written = await writeFeedBody(filesDir, key, version, body, compress);
  const stored = (form: WrittenForm | undefined) =>
    form === undefined ? undefined : { path: join(filesDir, form.name), length: form.length };
  const identity = stored(written.files.identity);
  if (identity === undefined) throw new Error('no identity file');
  const gzip = stored(written.files.gzip);
  const br = stored(written.files.br);
  return encodedFeed(
    {
      files: { identity, ...(gzip === undefined ? {} : { gzip }), ...(br === undefined ? {} : { br }) },
      identityLength: written.identityLength,
    },
    { key, version, lastModified, contentType: 'application/xml; charset=utf-8' },
  );
}

/** A body of 64 MiB in a file (identity alone: compressing it would only slow the test): sending it takes many chunks. */
const large = await fileFeed('large.xml', 'v-3', Buffer.alloc(LARGE_BYTES, LINE), false);
const small = await fileFeed('small.xml', 'v-4', Buffer.from(text));
/** Its identity file cut short after it was named (a disk fault): the answer is cut short and the reason told. */
const short = await fileFeed('short.xml', 'v-6', Buffer.alloc(1024 * 1024, LINE), false);
truncateSync(short.files?.identity.path ?? '', 1000);
/** What `onFileError` was told. */
const fileErrors: { error: unknown; path: string }[] = [];
/** Per response: whether it ended whole (`writableFinished`) once it closed. */
const outcomes: Promise<boolean>[] = [];
/** What each `sendFeed` returned. */
const results: Promise<unknown>[] = [];
const server = createServer((req, res) => {
  outcomes.push(new Promise((resolve) => res.once('close', () => resolve(res.writableFinished))));
  const served = req.url === '/small.xml' ? small : req.url === '/short.xml' ? short : large;
  results.push(sendFeed(req, res, served, { private: false, onFileError: (error, path) => fileErrors.push({ error, path }) }));
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const port = (server.address() as AddressInfo).port;
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** A GET to the large feed (or `path`), once its headers are in. */
async function identityGet(
  headers: Record<string, string> = { 'accept-encoding': 'identity' },
  path = '/large.xml',
): Promise<{ readonly req: ReturnType<typeof httpRequest>; readonly res: IncomingMessage }> {
  const req = httpRequest({ host: '127.0.0.1', port, path, headers });
  req.end();
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  return { req, res };
}

/** This process's open descriptors of `path` (Linux's /proc; 0 where there is none to read). */
function openDescriptorsOf(path: string): number {
  if (!existsSync('/proc/self/fd')) return 0;
  // The kernel names the file by its real path (a temp dir may sit behind a symlink).
  const real = realpathSync(path);
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === real;
    } catch {
      return false;
    }
  }).length;
}

async function bodyOf(res: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('http/send-feed: bodies in files, streamed from the page cache', () => {
  it('sends every byte, in many chunks, with the stored length, to a client that names no coding', async () => {
    const { res } = await identityGet({});
    let bytes = 0;
    let chunks = 0;
    let intact = true;
    res.on('data', (chunk: Buffer) => {
      // Every chunk is a run of the repeated line, continuing where the previous one ended.
      for (let i = 0; i < chunk.length; i += 4099) intact &&= chunk[i] === LINE[(bytes + i) % LINE.length];
      bytes += chunk.length;
      chunks += 1;
    });
    await once(res, 'end');

    expect(res.headers['content-length']).toBe(String(LARGE_BYTES));
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['etag']).toBe(`"${large.tag}"`);
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(bytes).toBe(LARGE_BYTES);
    expect(intact).toBe(true);
    expect(chunks).toBeGreaterThan(10);
    expect(await outcomes.at(-1)).toBe(true);
  });

  it.each([
    ['gzip', gunzipSync],
    ['br', brotliDecompressSync],
  ] as const)('sends the %s file as it was written, decoding to the body', async (coding, decode) => {
    const { res } = await identityGet({ 'accept-encoding': coding }, '/small.xml');
    const body = await bodyOf(res);

    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe(coding);
    expect(res.headers['etag']).toBe(`"${small.tag}-${coding}"`);
    expect(Number(res.headers['content-length'])).toBe(body.length);
    expect(body.equals(readFileSync(small.files?.[coding]?.path ?? ''))).toBe(true);
    expect(decode(body).toString()).toBe(text);
  });

  it('stops reading when the client goes away mid-body, without an error, and serves the next client', async () => {
    const { req, res } = await identityGet();
    await once(res, 'data');
    req.destroy();

    // The server's response closed before its end: the stream was torn down, not left running.
    expect(await outcomes.at(-1)).toBe(false);
    // And its file is closed. A write pending as a client leaves may never call back (Node 20: seen when
    // `bench/serve-day.ts` drops bodies after their headers); waiting for it alone left the file open until
    // the garbage collector closed it, with a warning. Here the callback comes; the close is checked either way.
    await waitFor(() => (openDescriptorsOf(large.files?.identity.path ?? '') === 0 ? true : undefined), {
      message: 'the feed file to be closed',
    });
    const next = await identityGet();
    let bytes = 0;
    next.res.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    await once(next.res, 'end');
    expect(bytes).toBe(LARGE_BYTES);
  });

  it('answers one byte range with 206 and exactly those bytes, in the coding negotiated', async () => {
    const identity = await identityGet({ 'accept-encoding': 'identity', range: 'bytes=10-19' }, '/small.xml');
    const gzip = await identityGet({ 'accept-encoding': 'gzip', range: 'bytes=-8' }, '/small.xml');
    const gzipBytes = readFileSync(small.files?.gzip?.path ?? '');

    expect(identity.res.statusCode).toBe(206);
    expect(identity.res.headers['content-range']).toBe(`bytes 10-19/${Buffer.byteLength(text)}`);
    expect(identity.res.headers['content-length']).toBe('10');
    expect((await bodyOf(identity.res)).equals(Buffer.from(text).subarray(10, 20))).toBe(true);
    expect(gzip.res.statusCode).toBe(206);
    expect(gzip.res.headers['content-encoding']).toBe('gzip');
    expect(gzip.res.headers['content-range']).toBe(`bytes ${gzipBytes.length - 8}-${gzipBytes.length - 1}/${gzipBytes.length}`);
    expect((await bodyOf(gzip.res)).equals(gzipBytes.subarray(-8))).toBe(true);
  });

  it('resumes a download only of the same representation (If-Range), and sends it whole otherwise', async () => {
    const same = await identityGet(
      { 'accept-encoding': 'identity', range: 'bytes=5-', 'if-range': `"${small.tag}"` },
      '/small.xml',
    );
    const changed = await identityGet(
      { 'accept-encoding': 'identity', range: 'bytes=5-', 'if-range': '"v-0-old"' },
      '/small.xml',
    );
    const dated = await identityGet(
      { 'accept-encoding': 'identity', range: 'bytes=5-', 'if-range': lastModified.toUTCString() },
      '/small.xml',
    );

    expect(same.res.statusCode).toBe(206);
    expect((await bodyOf(same.res)).toString()).toBe(Buffer.from(text).subarray(5).toString());
    expect(changed.res.statusCode).toBe(200);
    expect((await bodyOf(changed.res)).toString()).toBe(text);
    expect(dated.res.statusCode).toBe(206);
    await bodyOf(dated.res);
  });

  it('answers 416 to a range past the end, and the whole body to several ranges or another unit', async () => {
    const past = await identityGet({ 'accept-encoding': 'identity', range: `bytes=${LARGE_BYTES}-` });
    const several = await identityGet({ 'accept-encoding': 'identity', range: 'bytes=0-1,100-200' }, '/small.xml');
    const lines = await identityGet({ 'accept-encoding': 'identity', range: 'lines=1-2' }, '/small.xml');

    expect(past.res.statusCode).toBe(416);
    expect(past.res.headers['content-range']).toBe(`bytes */${LARGE_BYTES}`);
    await bodyOf(past.res);
    expect(several.res.statusCode).toBe(200);
    expect((await bodyOf(several.res)).toString()).toBe(text);
    expect(lines.res.statusCode).toBe(200);
    await bodyOf(lines.res);
  });

  it('cuts the answer short when the file is shorter than named, and tells why', async () => {
    const { req, res } = await identityGet({}, '/short.xml');
    // The client sees its answer aborted: fewer bytes than its Content-Length.
    req.on('error', () => {});
    res.on('error', () => {});
    let bytes = 0;
    res.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    // Not `once`: it rejects on the 'error' the aborted answer emits.
    await new Promise((resolve) => res.on('close', resolve));

    expect(res.headers['content-length']).toBe(String(1024 * 1024));
    expect(bytes).toBe(1000);
    expect(await outcomes.at(-1)).toBe(false);
    await vi.waitFor(() => expect(fileErrors).toHaveLength(1));
    expect(fileErrors[0]?.path).toBe(short.files?.identity.path);
    expect(String(fileErrors[0]?.error)).toContain('shorter than its manifest');
  });

  it('sends nothing and says so when the file is gone (a newer render replaced it): the caller serves that one', async () => {
    const gone = await fileFeed('gone.xml', 'v-5', Buffer.from(text));
    rmSync(gone.files?.gzip?.path ?? '');
    const res = { writeHead: vi.fn(), end: vi.fn() };
    const req = { method: 'GET', headers: { 'accept-encoding': 'gzip' } };

    const sent = await sendFeed(req as never, res as never, gone, { private: false });

    expect(sent).toBeUndefined();
    expect(res.writeHead).not.toHaveBeenCalled();
  });
});
