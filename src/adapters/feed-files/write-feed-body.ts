import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { collectFeed } from '../../core/feeds/collect-feed.js';
import type { FeedChunks, FeedReport } from '../../core/feeds/feed-report.js';
import { type BodyCoding, type BodyForms, brotliOptions, GZIP_LEVEL } from '../../services/feeds/encoded-feed.js';
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
 * Renders one body of `key` at `version` and writes it into `dir`: identity, and for a text body its gzip
 * and br forms. Synchronous, for the render worker thread, whose only job it is (no event loop of the
 * server's waits on it): the body is rendered whole and compressed in this thread. Measured against
 * compressing each form as the text streams in (zlib streams in libuv's pool): the whole-body way took
 * 56 s of CPU and 595 MiB peak RSS for every `all` feed of 100,000 × 5, the streamed one 82 s and 839 MiB
 * (the pool threads' allocations stay with their malloc arenas; decision 0016). Each file is written under a temporary
 * name and renamed when whole; on any failure (a full disk, a template that throws) every file of this
 * render is deleted and the error thrown, so the previous render stays the one named.
 */
export function writeFeedBodySync(
  dir: string,
  key: string,
  version: string,
  body: FeedChunks | Buffer,
  compress: boolean,
): WrittenBody & { readonly report: FeedReport | undefined } {
  mkdirSync(dir, { recursive: true });
  const names = bodyFileNames(feedFileBase(key), version);
  const { body: identity, report } = Buffer.isBuffer(body) ? { body, report: undefined } : collectFeed(body);
  const forms: [BodyCoding, () => Buffer][] = [['identity', () => identity]];
  if (compress) {
    forms.push(['gzip', () => gzipSync(identity, { level: GZIP_LEVEL })]);
    forms.push(['br', () => brotliCompressSync(identity, brotliOptions(identity.length))]);
  }
  const written: Partial<Record<BodyCoding, WrittenForm>> = {};
  const temps: string[] = [];
  try {
    for (const [coding, bytesOf] of forms) {
      const bytes = bytesOf();
      const temp = join(dir, tempName(names[coding]));
      temps.push(temp);
      writeFileSync(temp, bytes);
      written[coding] = { name: names[coding], length: bytes.length };
    }
    for (const [index, [coding]] of forms.entries()) renameSync(temps[index] ?? '', join(dir, names[coding]));
  } catch (error) {
    for (const path of [...temps, ...forms.map(([coding]) => join(dir, names[coding]))]) rmSync(path, { force: true });
    throw error;
  }
  const { identity: identityForm, gzip, br } = written;
  if (identityForm === undefined) throw new Error('no identity form written');
  return {
    files: { identity: identityForm, ...(gzip === undefined ? {} : { gzip }), ...(br === undefined ? {} : { br }) },
    identityLength: identity.length,
    report,
  };
}

/** Deletes the files of a written body no manifest will name. */
export async function removeWritten(dir: string, written: WrittenBody): Promise<void> {
  const forms = Object.values(written.files).filter((form): form is WrittenForm => form !== undefined);
  await Promise.all(forms.map((form) => rm(join(dir, form.name), { force: true })));
}
