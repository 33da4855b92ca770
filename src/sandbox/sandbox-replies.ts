import { once } from 'node:events';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Response } from 'express';
import type { ActiveFault } from './fault-injector.js';

/** Media type family of an endpoint: decides the shape of error and malformed answers. */
export type Media = 'json' | 'xml' | 'text';

interface ReplyBase {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A prepared answer; kept as data so faults can cut, replace or delay it before it is sent. */
export type Reply =
  | (ReplyBase & { readonly kind: 'json'; readonly body: unknown })
  | (ReplyBase & { readonly kind: 'text'; readonly contentType: string; readonly body: string | Buffer })
  | (ReplyBase & { readonly kind: 'stream'; readonly contentType: string; readonly chunks: () => Iterable<Buffer> });

export const CONTENT_TYPES: Readonly<Record<Media, string>> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  text: 'text/plain; charset=utf-8',
};

export function jsonReply(body: unknown, status = 200): Reply {
  return { kind: 'json', status, body };
}

export function textReply(body: string, status: number, media: Media = 'text'): Reply {
  return { kind: 'text', status, contentType: CONTENT_TYPES[media], body };
}

/** Envelope of a failed operation (interface part 7: status 200, problems in `isValid`/`errors`). */
export function invalidEnvelope(errors: readonly string[], warnings: readonly string[] = []): Record<string, unknown> {
  return { data: null, isValid: false, errors, warnings, messages: [] };
}

export function invalidReply(errors: readonly string[], status = 200): Reply {
  return jsonReply(invalidEnvelope(errors), status);
}

export function okEnvelope(
  data: unknown,
  warnings: readonly string[] = [],
  messages: readonly string[] = [],
): Record<string, unknown> {
  return { data, isValid: true, errors: [], warnings, messages };
}

function isClosed(res: Response): boolean {
  return res.destroyed || res.writableEnded;
}

export async function sendReply(res: Response, reply: Reply): Promise<void> {
  if (isClosed(res)) return;
  res.status(reply.status);
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  if (reply.kind === 'json') {
    res.setHeader('Content-Type', CONTENT_TYPES.json);
    res.end(JSON.stringify(reply.body));
    return;
  }
  res.setHeader('Content-Type', reply.contentType);
  if (reply.kind === 'text') {
    res.end(reply.body);
    return;
  }
  try {
    // Pulled one ~64 KiB chunk at a time, as fast as the socket drains, with a turn of the event loop
    // between chunks: rendering a 100,000-row export takes a second, and the sandbox's sales and webhook
    // deliveries must not wait for it (bench/webhook-latency.ts reports their lag).
    await pipeline(Readable.from(yieldingChunks(reply.chunks()), { highWaterMark: 1 }), res);
  } catch {
    // The client went away mid-body; nothing to answer any more.
  }
}

async function* yieldingChunks(chunks: Iterable<Buffer>): AsyncGenerator<Buffer> {
  for (const chunk of chunks) {
    yield chunk;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The whole body of a reply, for faults that need to know its length (truncated). */
export function materialize(reply: Reply): { contentType: string; body: Buffer } {
  if (reply.kind === 'json') return { contentType: CONTENT_TYPES.json, body: Buffer.from(JSON.stringify(reply.body)) };
  if (reply.kind === 'text') return { contentType: reply.contentType, body: Buffer.from(reply.body) };
  return { contentType: reply.contentType, body: Buffer.concat([...reply.chunks()]) };
}

/** Declares the full Content-Length, sends half of the body and cuts the connection. */
export function sendTruncated(res: Response, reply: Reply): void {
  const { contentType, body } = materialize(reply);
  const cut = Math.max(1, Math.floor(body.length / 2));
  res.status(reply.status);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', String(body.length));
  res.write(body.subarray(0, cut), () => {
    res.socket?.destroy();
  });
}

export function errorFaultReply(fault: ActiveFault, media: Media): Reply {
  const message = `Simulated failure: HTTP ${fault.status}`;
  const headers: Record<string, string> = {};
  if (fault.status === 429 || fault.status === 503) headers['Retry-After'] = String(fault.retryAfterSeconds);
  if (media === 'json') return { kind: 'json', status: fault.status, body: invalidEnvelope([message]), headers };
  // Non-JSON endpoints answer plain text errors; Retry-After must still be present.
  return { kind: 'text', status: fault.status, contentType: CONTENT_TYPES.text, body: `${message}\n`, headers };
}

/** Bodies that break every parser of their media type while keeping a plausible Content-Type. */
export function malformedReply(media: Media): Reply {
  if (media === 'json') {
    return textReply('{"data":{"items":[{"localId":"a-100001","name":"Káva zrnková,"isValid":tru', 200, 'json');
  }
  if (media === 'xml') {
    return textReply(
      '<?xml version="1.0" encoding="UTF-8"?>\n<SHOP>\n  <SHOPITEM><CODE>KAV-1001</CODE><PRICE_VAT>129.00</PRICE_VAT>\n  <SHOPITEM><CODE>&bad;</CODE>\n</SHOP',
      200,
      'xml',
    );
  }
  return {
    kind: 'text',
    status: 200,
    contentType: CONTENT_TYPES.text,
    // Invalid UTF-8, NUL bytes and no delimiter anywhere.
    body: Buffer.concat([
      Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0x80]),
      Buffer.from('\u0000garbage\u0007 not a stock export '),
    ]),
  };
}

/** Waits until `res` can take more, or has closed (then false). */
function drained(res: Response): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (open: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(open);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

/** The start and the endlessly repeated row of an `endless` body, valid in the endpoint's format. */
function endlessParts(media: Media): { readonly head: string; readonly row: (n: number) => string } {
  if (media === 'json') {
    return {
      head: '{"isValid":true,"data":{"total":null,"items":[',
      row: (n) => `{"localId":"endless-${n}","name":"Endless article ${n}","plu":"${n}"},`,
    };
  }
  if (media === 'xml') {
    return {
      head: '<?xml version="1.0" encoding="UTF-8"?>\n<SHOP>\n',
      row: (n) =>
        `  <SHOPITEM><CODE>ENDLESS-${n}</CODE><PRICE_VAT>1.00</PRICE_VAT><STOCK><AMOUNT>1</AMOUNT></STOCK></SHOPITEM>\n`,
    };
  }
  return { head: 'code;plu;quantity\n', row: (n) => `ENDLESS-${n};${n};1\n` };
}

/**
 * A hostile POS: a 200 whose valid-looking body never ends, written as fast as the client reads, until the
 * client goes away (or the sandbox stops, which closes every connection).
 */
export async function sendEndless(res: Response, media: Media): Promise<void> {
  const { head, row } = endlessParts(media);
  res.status(200);
  res.setHeader('Content-Type', CONTENT_TYPES[media]);
  res.write(head);
  for (let n = 0; !res.destroyed; ) {
    const rows: string[] = [];
    for (const end = n + 512; n < end; n += 1) rows.push(row(n));
    if (!res.write(rows.join('')) && !(await drained(res))) return;
    // Lets the sandbox's other requests through between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A POS on a bad line: the real answer, one byte every `intervalMs`, until it is sent or the client gives up. */
export async function sendTrickle(res: Response, reply: Reply, intervalMs: number): Promise<void> {
  const { contentType, body } = materialize(reply);
  res.status(reply.status);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', String(body.length));
  res.flushHeaders();
  for (let at = 0; at < body.length && !res.destroyed; at += 1) {
    res.write(body.subarray(at, at + 1));
    await new Promise((resolve) => setTimeout(resolve, intervalMs).unref());
  }
  if (!res.destroyed) res.end();
}

/** 50 MB without a line break, in the endpoint's format: a parser that reads lines must not hold it whole. */
export const LONG_LINE_BYTES = 50 * 1024 * 1024;

/** A 200 whose body is one line of `LONG_LINE_BYTES`, sent in slices as the client reads. */
export async function sendLongLine(res: Response, media: Media): Promise<void> {
  const head =
    media === 'json'
      ? '{"isValid":true,"data":{"items":[{"localId":"'
      : media === 'xml'
        ? '<?xml version="1.0" encoding="UTF-8"?><SHOP><SHOPITEM><CODE>'
        : 'code;quantity;';
  const slice = Buffer.alloc(64 * 1024, 0x78);
  res.status(200);
  res.setHeader('Content-Type', CONTENT_TYPES[media]);
  res.setHeader('Content-Length', String(head.length + LONG_LINE_BYTES));
  res.write(head);
  for (let sent = 0; sent < LONG_LINE_BYTES && !res.destroyed; sent += slice.length) {
    const part = sent + slice.length <= LONG_LINE_BYTES ? slice : slice.subarray(0, LONG_LINE_BYTES - sent);
    if (!res.write(part) && !(await drained(res))) return;
  }
  if (!res.destroyed) res.end();
}

/** Zeros that expand 1,000-fold: ~1 MB of gzip for 1 GiB. Made once, on first use, a MiB at a time. */
let gzipBomb: Promise<Buffer> | undefined;
function gzipBombBody(): Promise<Buffer> {
  gzipBomb ??= (async () => {
    const zeros = Buffer.alloc(1024 * 1024);
    const parts: Buffer[] = [];
    const gzip = createGzip({ level: 9 });
    gzip.on('data', (part: Buffer) => parts.push(part));
    for (let mib = 0; mib < 1024; mib += 1) if (!gzip.write(zeros)) await once(gzip, 'drain');
    gzip.end();
    await once(gzip, 'end');
    return Buffer.concat(parts);
  })();
  return gzipBomb;
}

/** A gzip bomb labelled `Content-Encoding: gzip`: a client that inflates what it did not ask for is flooded. */
export async function sendGzipBomb(res: Response, media: Media): Promise<void> {
  const body = await gzipBombBody();
  res.status(200);
  res.setHeader('Content-Type', CONTENT_TYPES[media]);
  res.setHeader('Content-Encoding', 'gzip');
  res.setHeader('Content-Length', String(body.length));
  res.end(body);
}

/** "Billion laughs": nested entities that expand to gigabytes in a parser that expands them. */
export function entitiesReply(media: Media): Reply {
  if (media !== 'xml') return malformedReply(media);
  const levels = ['<!ENTITY lol0 "lol">'];
  for (let level = 1; level <= 9; level += 1) {
    levels.push(`<!ENTITY lol${level} "${`&lol${level - 1};`.repeat(10)}">`);
  }
  return textReply(
    `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE SHOP [\n${levels.join('\n')}\n]>\n<SHOP><SHOPITEM><CODE>&lol9;</CODE></SHOPITEM></SHOP>\n`,
    200,
    'xml',
  );
}
