import {
  closeSync,
  createReadStream,
  createWriteStream,
  fdatasyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliCompress, createGzip } from 'node:zlib';
import type { FeedChunks, FeedReport } from '../../core/feeds/feed-report.js';
import {
  BODY_CODINGS,
  type BodyCoding,
  type BodyForms,
  brotliOptions,
  formList,
  GZIP_LEVEL,
} from '../../services/feeds/encoded-feed.js';
import { bodyFileNames, feedFileBase, tempName } from './feed-file-names.js';

/** One written form: its name in the directory and its bytes. */
export interface WrittenForm {
  readonly name: string;
  readonly length: number;
}

export interface WrittenBody {
  readonly files: BodyForms<WrittenForm>;
  readonly identityLength: number;
}

/** Bytes read from the identity file at a time while it is compressed. */
const COMPRESS_READ_BYTES = 1 << 20;
/**
 * The identity file is synced to disk every this many bytes written. Left to the kernel, a pass's ~450 MB
 * of feed files sat in the page cache and were written back in bursts; the webhook inbox's commit, which
 * must reach the disk before a sale is answered, then waited behind them (ext4 commits its journal in
 * order): in a burst of sales during a pre-render the webhooks' round trip was 103 ms at the median (40 ms
 * with the files on tmpfs, 32–41 ms synced in steps), and the POS's deliveries queued for seconds
 * (bench/webhook-latency.ts). Synced in small steps by this background thread, a commit has at most this
 * much to wait behind.
 */
const SYNC_EVERY_BYTES = 8 << 20;

/**
 * One body of a feed key being written into the feed files directory, for the render worker thread (no
 * server's event loop waits on it). The text goes to a temporary identity file as it is rendered
 * (synchronously: a pass writes many small parts); `finish` then compresses that file into gzip, then br,
 * each streamed from the file a mebibyte at a time (no body is ever whole in memory: whole, the 64 MiB
 * `products.json` took ~140 MiB of buffers), and renames the three into place. Streams fed as the text
 * comes, many small writes into 26 compressors at once, took ~45 % more CPU and peaked higher (decision
 * 0016). On any failure every file of the body is deleted (`abort`), so the previous render stays the one
 * named.
 */
export interface FeedBodyWriter {
  /** Appends text (UTF-8) or bytes to the identity form. */
  write(part: string | Uint8Array): void;
  /** Closes the identity form, writes the compressed forms when `compress`, and renames all into place. */
  finish(compress: boolean): Promise<WrittenBody>;
  /**
   * Deletes whatever was written (a failed render): safe to call more than once, and after a `finish` that
   * failed; not while a `finish` is running (that one deletes its files itself when it fails).
   */
  abort(): void;
}

export function openFeedBody(dir: string, key: string, version: string): FeedBodyWriter {
  mkdirSync(dir, { recursive: true });
  const names = bodyFileNames(feedFileBase(key), version);
  const temps: Partial<Record<BodyCoding, string>> = { identity: join(dir, tempName(names.identity)) };
  let fd: number | undefined = openSync(temps.identity as string, 'w');
  let identityLength = 0;
  let unsynced = 0;
  const close = (): void => {
    const open = fd;
    // Cleared first: a close that fails is not tried again by `abort`.
    fd = undefined;
    if (open !== undefined) closeSync(open);
  };
  /** Best effort: it runs while another error is thrown, which is the one to report. */
  const abort = (): void => {
    try {
      close();
    } catch {
      // The files are deleted all the same.
    }
    for (const coding of BODY_CODINGS) {
      const temp = temps[coding];
      for (const path of [temp, join(dir, names[coding])]) {
        try {
          if (path !== undefined) rmSync(path, { force: true });
        } catch {
          // A file that cannot be deleted is left to the next start's clean-up of orphans.
        }
      }
    }
  };
  return {
    write(part) {
      if (fd === undefined) throw new Error('the body is finished');
      const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
      identityLength += bytes.length;
      unsynced += bytes.length;
      if (unsynced >= SYNC_EVERY_BYTES) {
        fdatasyncSync(fd);
        unsynced = 0;
      }
    },
    async finish(compress) {
      try {
        // On disk before it is named: a crash after the rename never leaves a half file named.
        if (fd !== undefined) fdatasyncSync(fd);
        close();
        const written: Partial<Record<BodyCoding, WrittenForm>> = {
          identity: { name: names.identity, length: identityLength },
        };
        if (compress) Object.assign(written, await compressForms(dir, names, temps, identityLength));
        for (const coding of BODY_CODINGS) {
          const temp = temps[coding];
          if (temp !== undefined) renameSync(temp, join(dir, names[coding]));
        }
        const { identity, gzip, br } = written;
        return {
          files: {
            identity: identity as WrittenForm,
            ...(gzip === undefined ? {} : { gzip }),
            ...(br === undefined ? {} : { br }),
          },
          identityLength,
        };
      } catch (error) {
        abort();
        throw error;
      }
    },
    abort,
  };
}

/**
 * The gzip and br forms of the identity file `temps.identity`, each written to a temporary file recorded in
 * `temps` (so that a failure deletes it too): one after the other, as each compressor runs in libuv's pool
 * and one at a time keeps a core free.
 */
async function compressForms(
  dir: string,
  names: Readonly<Record<BodyCoding, string>>,
  temps: Partial<Record<BodyCoding, string>>,
  identityLength: number,
): Promise<Partial<Record<BodyCoding, WrittenForm>>> {
  const compressors: [BodyCoding, () => Transform][] = [
    ['gzip', () => createGzip({ level: GZIP_LEVEL })],
    ['br', () => createBrotliCompress(brotliOptions(identityLength))],
  ];
  const written: Partial<Record<BodyCoding, WrittenForm>> = {};
  for (const [coding, compressor] of compressors) {
    const temp = join(dir, tempName(names[coding]));
    temps[coding] = temp;
    await pipeline(
      createReadStream(temps.identity as string, { highWaterMark: COMPRESS_READ_BYTES }),
      compressor(),
      // On disk before it is named, as the identity file.
      createWriteStream(temp, { flush: true }),
    );
    written[coding] = { name: names[coding], length: (await stat(temp)).size };
  }
  return written;
}

/**
 * Renders one body of `key` at `version` into `dir` (text parts as they come, or bytes made whole) and
 * writes its forms: identity, and gzip and br when `compress`.
 */
export async function writeFeedBody(
  dir: string,
  key: string,
  version: string,
  body: FeedChunks | Buffer,
  compress: boolean,
): Promise<WrittenBody & { readonly report: FeedReport | undefined }> {
  const writer = openFeedBody(dir, key, version);
  try {
    if (Buffer.isBuffer(body)) {
      writer.write(body);
      return { ...(await writer.finish(compress)), report: undefined };
    }
    for (;;) {
      const next = body.next();
      if (next.done === true) return { ...(await writer.finish(compress)), report: next.value };
      writer.write(next.value);
    }
  } catch (error) {
    writer.abort();
    throw error;
  }
}

/** Deletes the files of a written body no manifest will name. */
export async function removeWritten(dir: string, written: WrittenBody): Promise<void> {
  await Promise.all(formList(written.files).map((form) => rm(join(dir, form.name), { force: true })));
}
