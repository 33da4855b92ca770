import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
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

/**
 * One body of a feed key being written into the feed files directory, synchronously, for the render worker
 * thread (no server's event loop waits on it). The text goes to a temporary identity file as it is
 * rendered; `finish` then compresses that file whole into gzip and br (one body in memory at a time, and
 * only there) and renames the three into place. Measured against zlib streams in libuv's pool fed as the
 * text comes: those took ~45 % more CPU and peaked higher (the pool threads' allocations stay with their
 * malloc arenas; decision 0016). On any failure every file of the body is deleted (`abort`), so the
 * previous render stays the one named.
 */
export interface FeedBodyWriter {
  /** Appends text (UTF-8) or bytes to the identity form. */
  write(part: string | Uint8Array): void;
  /** Closes the identity form, writes the compressed forms when `compress`, and renames all into place. */
  finish(compress: boolean): WrittenBody;
  /** Deletes whatever was written (a failed render): safe to call at any point, and more than once. */
  abort(): void;
}

export function openFeedBody(dir: string, key: string, version: string): FeedBodyWriter {
  mkdirSync(dir, { recursive: true });
  const names = bodyFileNames(feedFileBase(key), version);
  const temps: Partial<Record<BodyCoding, string>> = { identity: join(dir, tempName(names.identity)) };
  let fd: number | undefined = openSync(temps.identity as string, 'w');
  let identityLength = 0;
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
    },
    finish(compress) {
      try {
        close();
        const written: Partial<Record<BodyCoding, WrittenForm>> = {
          identity: { name: names.identity, length: identityLength },
        };
        if (compress) {
          const identity = readFileSync(temps.identity as string);
          const compressed: [BodyCoding, () => Buffer][] = [
            ['gzip', () => gzipSync(identity, { level: GZIP_LEVEL })],
            ['br', () => brotliCompressSync(identity, brotliOptions(identity.length))],
          ];
          for (const [coding, compressOf] of compressed) {
            const bytes = compressOf();
            const temp = join(dir, tempName(names[coding]));
            temps[coding] = temp;
            writeFileSync(temp, bytes);
            written[coding] = { name: names[coding], length: bytes.length };
          }
        }
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
 * Renders one body of `key` at `version` into `dir` (text parts as they come, or bytes made whole) and
 * writes its forms: identity, and gzip and br when `compress`.
 */
export function writeFeedBodySync(
  dir: string,
  key: string,
  version: string,
  body: FeedChunks | Buffer,
  compress: boolean,
): WrittenBody & { readonly report: FeedReport | undefined } {
  const writer = openFeedBody(dir, key, version);
  try {
    if (Buffer.isBuffer(body)) {
      writer.write(body);
      return { ...writer.finish(compress), report: undefined };
    }
    for (;;) {
      const next = body.next();
      if (next.done === true) return { ...writer.finish(compress), report: next.value };
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
