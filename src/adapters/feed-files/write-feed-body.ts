import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliCompress, createGzip } from 'node:zlib';
import type { FeedChunks, FeedReport } from '../../core/feeds/feed-report.js';
import { type BodyCoding, brotliOptions, GZIP_LEVEL } from '../../services/feeds/encoded-feed.js';
import { bodyFileNames, feedFileBase, tempName } from './feed-file-names.js';

/** One written form: its name in the directory and its bytes. */
export interface WrittenForm {
  readonly name: string;
  readonly length: number;
}

export interface WrittenBody {
  readonly files: { readonly identity: WrittenForm; readonly gzip?: WrittenForm; readonly br?: WrittenForm };
  readonly identityLength: number;
}

/** Rendered text is encoded and written in batches of about this many characters. */
const BATCH_CHARS = 1 << 20;

interface Sink {
  readonly coding: BodyCoding;
  readonly temp: string;
  readonly final: string;
  /** Where bytes go in: the file, or the compressor in front of it. */
  readonly input: NodeJS.WritableStream & { write(chunk: Buffer): boolean; end(): void };
  readonly file: WriteStream;
  /** Settles when the file is whole (or the first error). */
  readonly done: Promise<void>;
}

function openSink(dir: string, coding: BodyCoding, name: string, sizeHint: number): Sink {
  const temp = join(dir, tempName(name));
  const file = createWriteStream(temp);
  let input: Sink['input'] = file;
  let done: Promise<void>;
  if (coding === 'identity') done = once(file, 'finish').then(() => undefined);
  else {
    const compressor = coding === 'gzip' ? createGzip({ level: GZIP_LEVEL }) : createBrotliCompress(brotliOptions(sizeHint));
    input = compressor;
    done = pipeline(compressor, file);
  }
  // Awaited at the end; an early failure must not be an unhandled rejection meanwhile.
  done.catch(() => {});
  file.on('error', () => {});
  return { coding, temp, final: join(dir, name), input, file, done };
}

async function writeAll(sinks: readonly Sink[], bytes: Buffer): Promise<void> {
  const full = sinks.filter((sink) => !sink.input.write(bytes));
  // Backpressure: one batch in each compressor at most. A failed file rejects its sink's wait.
  await Promise.all(
    full.map((sink) => {
      const drained = once(sink.input, 'drain');
      // The sink's own promise reports its failure; a late 'error' here must not go unhandled.
      drained.catch(() => {});
      return Promise.race([drained, sink.done]);
    }),
  );
}

/**
 * Writes one rendered body of `key` at `version` into `dir` as it is rendered: identity, and for a text
 * body its gzip and br forms, each compressed as the text arrives (no whole body is held). Each file is
 * written under a temporary name and renamed when whole; on any failure (a full disk) every file of this
 * render is deleted and the error thrown, so the previous render stays the one named.
 */
export async function writeFeedBody(
  dir: string,
  key: string,
  version: string,
  body: FeedChunks | Buffer,
  compress: boolean,
): Promise<WrittenBody & { readonly report: FeedReport | undefined }> {
  await mkdir(dir, { recursive: true });
  const names = bodyFileNames(feedFileBase(key), version);
  const sizeHint = Buffer.isBuffer(body) ? body.length : 0;
  const codings: BodyCoding[] = compress ? ['identity', 'gzip', 'br'] : ['identity'];
  const sinks = codings.map((coding) => openSink(dir, coding, names[coding], sizeHint));
  let identityLength = 0;
  let report: FeedReport | undefined;
  try {
    if (Buffer.isBuffer(body)) {
      for (let start = 0; start < body.length; start += BATCH_CHARS) {
        await writeAll(sinks, body.subarray(start, start + BATCH_CHARS));
      }
      identityLength = body.length;
    } else {
      let batch: string[] = [];
      let chars = 0;
      const flush = async () => {
        const bytes = Buffer.from(batch.join(''), 'utf8');
        batch = [];
        chars = 0;
        identityLength += bytes.length;
        await writeAll(sinks, bytes);
      };
      for (;;) {
        const next = body.next();
        if (next.done === true) {
          report = next.value;
          break;
        }
        batch.push(next.value);
        chars += next.value.length;
        if (chars >= BATCH_CHARS) await flush();
      }
      if (chars > 0) await flush();
    }
    for (const sink of sinks) sink.input.end();
    await Promise.all(sinks.map((sink) => sink.done));
    for (const sink of sinks) await rename(sink.temp, sink.final);
  } catch (error) {
    for (const sink of sinks) sink.file.destroy();
    await Promise.all(sinks.flatMap((sink) => [rm(sink.temp, { force: true }), rm(sink.final, { force: true })]));
    throw error;
  }
  const written = (sink: Sink): WrittenForm => ({ name: names[sink.coding], length: sink.file.bytesWritten });
  const [identity, gzip, br] = sinks;
  if (identity === undefined) throw new Error('no identity form written');
  return {
    files: {
      identity: written(identity),
      ...(gzip === undefined ? {} : { gzip: written(gzip) }),
      ...(br === undefined ? {} : { br: written(br) }),
    },
    identityLength,
    report,
  };
}

/** Deletes the files of a written body no manifest will name. */
export async function removeWritten(dir: string, written: WrittenBody): Promise<void> {
  const { identity, gzip, br } = written.files;
  await Promise.all(
    [identity, gzip, br].map((form) => (form === undefined ? undefined : rm(join(dir, form.name), { force: true }))),
  );
}
