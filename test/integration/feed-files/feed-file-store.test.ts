import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { feedFileBase } from '../../../src/adapters/feed-files/feed-file-names.js';
import { openFeedFileStore } from '../../../src/adapters/feed-files/feed-file-store.js';
import { FeedFilesInUseError } from '../../../src/adapters/feed-files/feed-files-lock.js';
import { openFeedBody, type WrittenBody, writeFeedBody } from '../../../src/adapters/feed-files/write-feed-body.js';
import type { FeedChunks, FeedReport } from '../../../src/core/feeds/feed-report.js';
import { encodedFeed, type StoredFile } from '../../../src/services/feeds/encoded-feed.js';
import type { CachedFeed } from '../../../src/services/feeds/feed-cache.js';

const root = mkdtempSync(join(tmpdir(), 'feed-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(root, `dir-${++dirs}`);
const now = () => new Date('2026-11-29T10:00:00Z');

const REPORT: FeedReport = {
  feed: 'google.xml',
  items: 2,
  records: 2,
  filtered: 0,
  outOfStock: 0,
  dropped: 0,
  truncated: 0,
  excluded: 0,
  warnings: { count: 0, byAttribute: {}, byCode: {}, examples: [] },
};

function* chunks(parts: readonly string[]): FeedChunks {
  for (const part of parts) yield part;
  return REPORT;
}

function entryOf(dir: string, key: string, version: string, written: WrittenBody): CachedFeed {
  const stored = (form: { name: string; length: number }): StoredFile => ({ path: join(dir, form.name), length: form.length });
  const { identity, gzip, br } = written.files;
  const feed = encodedFeed(
    {
      files: {
        identity: stored(identity),
        ...(gzip === undefined ? {} : { gzip: stored(gzip) }),
        ...(br === undefined ? {} : { br: stored(br) }),
      },
      identityLength: written.identityLength,
    },
    { key, version, lastModified: now(), contentType: 'application/xml; charset=utf-8', fileName: 'google-all.xml' },
  );
  return { feed, report: REPORT, renderMs: 12 };
}

async function render(dir: string, key: string, version: string, text: string): Promise<CachedFeed> {
  const written = await writeFeedBody(dir, key, version, chunks([text.slice(0, 5), text.slice(5)]), true);
  return entryOf(dir, key, version, written);
}

const KEY = 'google.xml|all|';

/** A store naming a good render of `KEY` at v-1, and the directory's files then. */
async function storeWithGoodRender() {
  const dir = freshDir();
  const store = openFeedFileStore({ dir, now });
  await store.restore();
  await store.commit(KEY, await render(dir, KEY, 'v-1', '<rss>good</rss>'));
  return { dir, store, before: readdirSync(dir).sort() };
}

describe('adapters/feed-files: the rendered feeds on disk', () => {
  it('writes each form whole as it renders, and a restart restores the feed named last, report and all', async () => {
    const dir = freshDir();
    const store = openFeedFileStore({ dir, now });
    await store.restore();
    const first = await render(dir, KEY, 'v-1', '<rss>one</rss>');
    await store.commit(KEY, first);
    const second = await render(dir, KEY, 'v-2', '<rss>two</rss>');
    await store.commit(KEY, second);
    await store.discard(KEY, first, { forget: false });
    await store.close();

    const again = openFeedFileStore({ dir, now });
    const restored = await again.restore();

    expect(restored).toHaveLength(1);
    const [key, entry] = restored[0] ?? [];
    expect(key).toBe(KEY);
    expect(entry?.feed).toEqual(second.feed);
    expect(entry?.report).toEqual(REPORT);
    expect(entry?.renderMs).toBe(12);
    const files = entry?.feed.files;
    expect(await readFile(files?.identity.path ?? '', 'utf8')).toBe('<rss>two</rss>');
    expect(gunzipSync(await readFile(files?.gzip?.path ?? '')).toString()).toBe('<rss>two</rss>');
    // The replaced render's files are gone: the manifest, and one render's three forms.
    expect(readdirSync(dir).sort()).toEqual(
      [
        '.lock',
        `${feedFileBase(KEY)}.json`,
        ...[files?.identity, files?.gzip, files?.br].map((file) => file?.path.slice(dir.length + 1)),
      ].sort(),
    );
    await again.close();
  });

  it('after a crash between a write and its rename or manifest, serves the last good render and deletes the rest', async () => {
    const dir = freshDir();
    const store = openFeedFileStore({ dir, now });
    await store.restore();
    const good = await render(dir, KEY, 'v-1', '<rss>good</rss>');
    await store.commit(KEY, good);
    // A newer render written whole but never named (the process died before its manifest), and a half file.
    const orphan = await render(dir, KEY, 'v-2', '<rss>newer</rss>');
    writeFileSync(join(dir, '.tmp-0badc0de-google.xml~all~~x@v-3.0000.body'), '<rss>ha');
    writeFileSync(join(dir, `.tmp-0badc0de-${feedFileBase(KEY)}.json`), '{"format":1,');
    await store.close();

    const again = openFeedFileStore({ dir, now });
    const restored = await again.restore();

    expect(restored.map(([, entry]) => entry.feed.version)).toEqual(['v-1']);
    expect(await readFile(restored[0]?.[1].feed.files?.identity.path ?? '', 'utf8')).toBe('<rss>good</rss>');
    expect(existsSync(orphan.feed.files?.identity.path ?? '')).toBe(false);
    expect(readdirSync(dir).filter((name) => name.startsWith('.tmp-'))).toEqual([]);
    expect(readdirSync(dir)).toHaveLength(5);
    await again.close();
  });

  it('drops a manifest whose file is not whole (the feed is rendered again), saying so', async () => {
    const dir = freshDir();
    const store = openFeedFileStore({ dir, now });
    await store.restore();
    const entry = await render(dir, KEY, 'v-1', '<rss>whole</rss>');
    await store.commit(KEY, entry);
    await store.close();
    truncateSync(entry.feed.files?.gzip?.path ?? '', 3);
    const problems: string[] = [];

    const again = openFeedFileStore({ dir, now, onProblem: (message) => problems.push(message) });

    expect(await again.restore()).toEqual([]);
    expect(problems).toEqual([expect.stringContaining('not whole')]);
    expect(readdirSync(dir)).toEqual(['.lock']);
    await again.close();
  });

  it('forgets an evicted feed: its manifest and files go, but not a newer render named meanwhile', async () => {
    const dir = freshDir();
    const store = openFeedFileStore({ dir, now });
    await store.restore();
    const old = await render(dir, KEY, 'v-1', '<rss>old</rss>');
    await store.commit(KEY, old);
    const newer = await render(dir, KEY, 'v-2', '<rss>new</rss>');
    await store.commit(KEY, newer);

    await store.discard(KEY, old, { forget: true });
    expect(existsSync(join(dir, `${feedFileBase(KEY)}.json`))).toBe(true);
    await store.discard(KEY, newer, { forget: true });

    expect(readdirSync(dir)).toEqual(['.lock']);
    await store.close();
  });

  it('deletes every file of a write that fails and throws, so the previous render stays the one named', async () => {
    const { dir, store, before } = await storeWithGoodRender();
    function* failing(): FeedChunks {
      yield '<rss>'.repeat(300_000);
      throw new Error('the template failed half-way');
    }

    await expect(writeFeedBody(dir, KEY, 'v-2', failing(), true)).rejects.toThrow('half-way');

    expect(readdirSync(dir).sort()).toEqual(before);
    await store.close();
    const restored = await openFeedFileStore({ dir, now }).restore();
    expect(restored.map(([, entry]) => entry.feed.version)).toEqual(['v-1']);
  });

  it('deletes every file of a body whose compression fails, and rejects, so the previous render stays the one named', async () => {
    const { dir, store, before } = await storeWithGoodRender();
    const writer = openFeedBody(dir, KEY, 'v-2');
    // Over a mebibyte: the compression reads the identity file in several pieces.
    writer.write('<item>Káva</item>'.repeat(120_000));
    // The identity file gone before it is compressed (a disk swapped under the bridge, a clean-up gone wrong).
    for (const name of readdirSync(dir)) if (name.startsWith('.tmp') && name.includes('v-2')) rmSync(join(dir, name));

    await expect(writer.finish(true)).rejects.toThrow(/ENOENT/);

    expect(readdirSync(dir).sort()).toEqual(before);
    writer.abort(); // safe after a failed finish
    await store.close();
  });

  it('compresses a body of several mebibytes in pieces into forms that decompress to it', async () => {
    const dir = freshDir();
    const text = '<item>Káva €</item>\n'.repeat(200_000);
    const written = await writeFeedBody(dir, KEY, 'v-1', chunks([text]), true);
    const { gzip, br } = written.files;
    if (gzip === undefined || br === undefined) throw new Error('no compressed forms');

    expect(gunzipSync(await readFile(join(dir, gzip.name))).toString('utf8')).toBe(text);
    expect(brotliDecompressSync(await readFile(join(dir, br.name))).toString('utf8')).toBe(text);
    expect(written.identityLength).toBe(Buffer.byteLength(text));
  });

  it('reports a manifest it could not write, and clears the report with the next good write', async () => {
    const dir = freshDir();
    const store = openFeedFileStore({ dir, now });
    await store.restore();
    const entry = await render(dir, KEY, 'v-1', '<rss>one</rss>');
    // The manifest's name taken by a folder: its rename fails as a full disk's write would.
    const manifest = join(dir, `${feedFileBase(KEY)}.json`);
    mkdirSync(join(manifest, 'inside'), { recursive: true });

    await expect(store.commit(KEY, entry)).rejects.toThrow();
    expect(store.status()).toMatchObject({ dir, lastError: { feed: KEY, at: now().toISOString() } });

    rmSync(manifest, { recursive: true });
    await store.commit(KEY, entry);
    expect(store.status()).toEqual({ dir });
    await store.close();
  });

  it('lets one bridge use a directory at a time, and takes over the lock of one that is gone', async () => {
    const dir = freshDir();
    const store = openFeedFileStore({ dir, now });
    await store.restore();

    await expect(openFeedFileStore({ dir, now }).restore()).rejects.toBeInstanceOf(FeedFilesInUseError);
    await store.close();
    // Held by a live process (this one's parent).
    writeFileSync(join(dir, '.lock'), String(process.ppid));
    await expect(openFeedFileStore({ dir, now }).restore()).rejects.toThrow(`in use by process ${process.ppid}`);
    // Left by a process that is gone.
    writeFileSync(join(dir, '.lock'), '999999999');
    const next = openFeedFileStore({ dir, now });
    await expect(next.restore()).resolves.toEqual([]);
    await next.close();
  });

  it('deletes a temporary directory at close', async () => {
    const dir = freshDir();
    const store = openFeedFileStore({ dir, now, temporary: true });
    await store.restore();
    await store.commit(KEY, await render(dir, KEY, 'v-1', '<rss/>'));

    await store.close();

    expect(existsSync(dir)).toBe(false);
  });
});
