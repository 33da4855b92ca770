import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import type { FeedReport } from '../../core/feeds/feed-report.js';
import { type FileBody, feedTag, formList, mapForms, type StoredFile } from '../../services/feeds/encoded-feed.js';
import type { CachedFeed } from '../../services/feeds/feed-cache.js';
import type { FeedFileStore, FeedFilesStatus } from '../../services/feeds/feed-files.js';
import { feedFileBase, LOCK_NAME, manifestName, TEMP_PREFIX, tempName } from './feed-file-names.js';
import { acquireDirLock, releaseDirLock, removeAbandonedFeedFiles } from './feed-files-lock.js';

const Form = z.object({
  name: z.string().regex(/^[^/\\]+$/, 'a file name in the directory'),
  length: z.number().int().nonnegative(),
});

/** The report as the status page reads it; what it does not read is kept as written. */
const Report = z.looseObject({
  feed: z.string(),
  items: z.number(),
  records: z.number(),
  filtered: z.number(),
  outOfStock: z.number(),
  dropped: z.number(),
  truncated: z.number(),
  excluded: z.number(),
  warnings: z.looseObject({
    count: z.number(),
    byAttribute: z.record(z.string(), z.number()),
    byCode: z.record(z.string(), z.number()),
    examples: z.array(z.looseObject({ feed: z.string(), itemId: z.string(), attribute: z.string() })),
  }),
});

/** A manifest: the newest render of one feed key and the files that hold it. */
const Manifest = z.object({
  format: z.literal(1),
  key: z.string().min(1),
  version: z.string().min(1),
  lastModified: z.iso.datetime(),
  contentType: z.string().min(1),
  fileName: z.string().optional(),
  identityLength: z.number().int().nonnegative(),
  renderMs: z.number().nonnegative(),
  files: z.object({ identity: Form, gzip: Form.optional(), br: Form.optional() }),
  report: Report.optional(),
});
type Manifest = z.infer<typeof Manifest>;

export interface FeedFileStoreOptions {
  readonly dir: string;
  readonly now: () => Date;
  /** Told of a file that was not whole or not readable at start, and of failed deletions. */
  readonly onProblem?: (message: string, error?: unknown) => void;
  /** Delete the directory at close: a temporary one (no store on disk to sit beside). */
  readonly temporary?: boolean;
}

function manifestOf(key: string, entry: CachedFeed, files: FileBody['files']): Manifest {
  const { feed } = entry;
  return {
    format: 1,
    key,
    version: feed.version,
    lastModified: feed.lastModified.toISOString(),
    contentType: feed.contentType,
    ...(feed.fileName === undefined ? {} : { fileName: feed.fileName }),
    identityLength: feed.identityLength,
    renderMs: entry.renderMs,
    files: mapForms(files, (file) => ({ name: basename(file.path), length: file.length })),
    ...(entry.report === undefined ? {} : { report: entry.report as unknown as z.infer<typeof Report> }),
  };
}

function entryOf(dir: string, manifest: Manifest): CachedFeed {
  return {
    feed: {
      files: mapForms(manifest.files, (form): StoredFile => ({ path: join(dir, form.name), length: form.length })),
      identityLength: manifest.identityLength,
      contentType: manifest.contentType,
      tag: feedTag(manifest.key, manifest.version),
      version: manifest.version,
      lastModified: new Date(manifest.lastModified),
      ...(manifest.fileName === undefined ? {} : { fileName: manifest.fileName }),
    },
    // Validated above for what is read of it; the rest is as this bridge wrote it.
    report: manifest.report as unknown as FeedReport | undefined,
    renderMs: manifest.renderMs,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The feed files in a directory on disk (docs/decisions/0016-feed-files.md). One process uses a directory
 * at a time (a lock file names it). Manifests are small JSON files written under a temporary name and
 * renamed; bodies are written by the renderer (`write-feed-body.ts`).
 */
export function openFeedFileStore(options: FeedFileStoreOptions): FeedFileStore {
  const { dir } = options;
  /** Per key, the work in order: a manifest is written before the replaced render's files go. */
  const chains = new Map<string, Promise<void>>();
  /** Per key, the identity file its manifest names. */
  const named = new Map<string, string>();
  let lastError: FeedFilesStatus['lastError'];
  let locked = false;

  function inOrder(key: string, work: () => Promise<void>): Promise<void> {
    const next = (chains.get(key) ?? Promise.resolve()).then(work);
    const settled = next.catch(() => {});
    chains.set(key, settled);
    void settled.then(() => {
      if (chains.get(key) === settled) chains.delete(key);
    });
    return next;
  }

  async function removeFiles(files: FileBody['files']): Promise<void> {
    await Promise.all(
      formList(files).map((file) =>
        rm(file.path, { force: true }).catch((error: unknown) => options.onProblem?.(`could not delete ${file.path}`, error)),
      ),
    );
  }

  async function readManifest(name: string): Promise<Manifest | undefined> {
    const path = join(dir, name);
    try {
      const manifest = Manifest.parse(JSON.parse(await readFile(path, 'utf8')));
      for (const form of formList(manifest.files)) {
        const size = (await stat(join(dir, form.name))).size;
        if (size !== form.length) throw new Error(`${form.name} has ${size} bytes, not ${form.length}`);
      }
      if (manifestName(feedFileBase(manifest.key)) !== name) throw new Error(`names the feed ${manifest.key}`);
      return manifest;
    } catch (error) {
      options.onProblem?.(`the feed file ${name} is not whole or not readable; the feed is rendered again`, error);
      await rm(path, { force: true });
      return undefined;
    }
  }

  /** The sweep of other bridges' abandoned temporary folders, once this one is locked. */
  let sweeping: Promise<void> | undefined;
  async function removeAbandoned(root: string): Promise<void> {
    try {
      const removed = await removeAbandonedFeedFiles(root);
      if (removed.length > 0) options.onProblem?.(`deleted the feed folders of bridges that are gone: ${removed.join(', ')}`);
    } catch (error) {
      options.onProblem?.('could not look for the feed folders of bridges that are gone', error);
    }
  }

  return {
    dir,
    async restore() {
      await acquireDirLock(dir);
      // In the background: deleting feeds of up to `FEED_CACHE_MB` each must not hold the start back.
      if (options.temporary === true) sweeping = removeAbandoned(dirname(dir));
      locked = true;
      const names = await readdir(dir);
      const manifests: Manifest[] = [];
      for (const name of names) {
        if (!name.endsWith('.json') || name.startsWith(TEMP_PREFIX)) continue;
        const manifest = await readManifest(name);
        if (manifest !== undefined) manifests.push(manifest);
      }
      const kept = new Set([LOCK_NAME]);
      for (const manifest of manifests) {
        kept.add(manifestName(feedFileBase(manifest.key)));
        for (const form of formList(manifest.files)) kept.add(form.name);
        named.set(manifest.key, join(dir, manifest.files.identity.name));
      }
      // Temporary files and bodies no manifest names: a crash between a write and its rename or manifest.
      await Promise.all(names.filter((name) => !kept.has(name)).map((name) => rm(join(dir, name), { force: true })));
      return manifests.map((manifest) => [manifest.key, entryOf(dir, manifest)] as const);
    },
    commit(key, entry) {
      const { files } = entry.feed;
      if (files === undefined) return Promise.resolve();
      return inOrder(key, async () => {
        const name = manifestName(feedFileBase(key));
        const temp = join(dir, tempName(name));
        try {
          await writeFile(temp, JSON.stringify(manifestOf(key, entry, files)));
          await rename(temp, join(dir, name));
          named.set(key, files.identity.path);
          if (lastError?.feed === key) lastError = undefined;
        } catch (error) {
          await rm(temp, { force: true });
          lastError = { at: options.now().toISOString(), feed: key, message: messageOf(error) };
          throw error;
        }
      });
    },
    discard(key, entry, { forget }) {
      const { files } = entry.feed;
      if (files === undefined) return Promise.resolve();
      return inOrder(key, async () => {
        if (forget && named.get(key) === files.identity.path) {
          named.delete(key);
          await rm(join(dir, manifestName(feedFileBase(key))), { force: true });
        }
        await removeFiles(files);
      });
    },
    noteError(feed, error) {
      lastError = { at: options.now().toISOString(), feed, message: messageOf(error) };
    },
    status: () => ({ dir, ...(lastError === undefined ? {} : { lastError }) }),
    async close() {
      await sweeping;
      while (chains.size > 0) await Promise.all(chains.values());
      if (locked) await releaseDirLock(dir);
      locked = false;
      if (options.temporary === true) await rm(dir, { recursive: true, force: true });
    },
  };
}
