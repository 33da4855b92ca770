import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { ALL_UNITS, type CatalogSnapshot } from '../core/catalog/catalog.js';
import { type BodyForm, formOf } from '../services/feeds/encoded-feed.js';
import type { FeedService, FeedVariant } from '../services/feeds/feed-service.js';

/** The index written beside the feeds: what a cron job or a static host can check. */
export const INDEX_FILE = 'feeds.json';

export interface WrittenFeedFile {
  /** Path inside the output folder, `/`-separated, as after `/feeds/` in the bridge's URLs. */
  readonly path: string;
  readonly feed: string;
  readonly title: string;
  readonly format: string;
  readonly unit: string;
  readonly items: number;
  readonly bytes: number;
  /**
   * Also written: `{path}.gz` and `{path}.br` (for static servers that serve pre-compressed files); none
   * for `products.xlsx`, which is a zip already (compressing it again saves nothing).
   */
  readonly compressed: readonly string[];
}

export interface FeedFilesIndex {
  readonly version: string;
  readonly generatedAt: string;
  readonly currency: string;
  readonly files: readonly WrittenFeedFile[];
  /** Views not written because their unit code cannot be a folder name (`/`, `\\`, `..`, …). */
  readonly skippedUnits?: readonly string[];
}

interface PlannedFile {
  readonly path: string;
  readonly file: string;
  readonly view: string;
  readonly variant: FeedVariant;
}

/**
 * Every feed of every view, at the paths the bridge serves them under `/feeds/` (so a static host can
 * serve the folder at the same URLs): `all/google.xml`, `U1/products.csv`, `U1/products.xlsx`,
 * `local-inventory.tsv`, …, plus `{view}/products-excel.csv` (the `?profile=excel` download).
 */
function planFiles(feeds: FeedService, snapshot: CatalogSnapshot): PlannedFile[] {
  const views = [ALL_UNITS, ...snapshot.units.map((unit) => unit.code)];
  const planned: PlannedFile[] = [];
  for (const view of views) {
    for (const descriptor of feeds.feeds) {
      if (!descriptor.servesView(view)) continue;
      planned.push({ path: `${view}/${descriptor.file}`, file: descriptor.file, view, variant: {} });
      if (descriptor.file === 'products.csv') {
        planned.push({ path: `${view}/products-excel.csv`, file: descriptor.file, view, variant: { csvProfile: 'excel' } });
      }
      if (descriptor.file === 'local-inventory.tsv' && view === ALL_UNITS) {
        planned.push({ path: descriptor.file, file: descriptor.file, view, variant: {} });
      }
    }
  }
  return planned;
}

/** A unit code as one safe path segment (codes come from the POS). */
function isSafeSegment(segment: string): boolean {
  return segment !== '' && segment !== '.' && segment !== '..' && !/[/\\\0]/.test(segment);
}

async function previousPaths(outDir: string): Promise<string[]> {
  try {
    const index = JSON.parse(await readFile(join(outDir, INDEX_FILE), 'utf8')) as {
      files?: { path?: unknown; compressed?: unknown }[];
    };
    const paths: string[] = [];
    for (const file of index.files ?? []) {
      if (typeof file.path === 'string') paths.push(file.path);
      if (Array.isArray(file.compressed)) for (const path of file.compressed) if (typeof path === 'string') paths.push(path);
    }
    return paths;
  } catch {
    return [];
  }
}

async function writeForm(form: BodyForm | undefined, target: string): Promise<void> {
  if (form === undefined) throw new Error(`no body to write to ${target}`);
  if (Buffer.isBuffer(form)) await writeFile(target, form);
  else await copyFile(form.path, target);
}

/**
 * Renders every feed of `snapshot` and writes it into `outDir`. All files are first written into a
 * staging folder inside `outDir`, then each is renamed into place: a feed file is always whole (never
 * half-written), and when any feed fails to render, no file of `outDir` is touched. Files that the
 * previous run wrote (per its `feeds.json`) and this one does not, such as the feeds of a removed unit,
 * are deleted. `feeds.json` is written last.
 */
export async function writeFeedFiles(feeds: FeedService, snapshot: CatalogSnapshot, outDir: string): Promise<FeedFilesIndex> {
  const all = planFiles(feeds, snapshot);
  const planned = all.filter((file) => file.path.split('/').every(isSafeSegment));
  const skippedUnits = [...new Set(all.filter((file) => !planned.includes(file)).map((file) => file.view))];
  await mkdir(outDir, { recursive: true });
  const staging = join(outDir, `.staging-${process.pid}-${Date.now()}`);
  const written: WrittenFeedFile[] = [];
  try {
    for (const file of planned) {
      const { feed, report } = await feeds.render(snapshot, file.file, file.view, file.variant, { fresh: true });
      const target = join(staging, ...file.path.split('/'));
      await mkdir(dirname(target), { recursive: true });
      // Copied from the renderer's files (or written from memory): the same bytes the bridge serves.
      await writeForm(formOf(feed, 'identity'), target);
      const compressed: string[] = [];
      for (const [suffix, coding] of [
        ['.gz', 'gzip'],
        ['.br', 'br'],
      ] as const) {
        const form = formOf(feed, coding);
        if (form === undefined) continue;
        await writeForm(form, `${target}${suffix}`);
        compressed.push(`${file.path}${suffix}`);
      }
      const descriptor = feeds.find(file.file);
      written.push({
        path: file.path,
        feed: descriptor?.name ?? file.file,
        title: descriptor?.title ?? file.file,
        format: descriptor?.format ?? '',
        unit: file.view,
        items: report?.items ?? 0,
        bytes: feed.identityLength,
        compressed,
      });
    }
    const keep = new Set<string>();
    for (const file of written) {
      for (const path of [file.path, ...file.compressed]) {
        keep.add(path);
        const target = join(outDir, ...path.split('/'));
        await mkdir(dirname(target), { recursive: true });
        await rename(join(staging, ...path.split('/')), target);
      }
    }
    for (const path of await previousPaths(outDir)) {
      const target = join(outDir, ...path.split('/'));
      const inside = relative(outDir, target);
      // Only files inside outDir that this run did not write (the old index is a file anyone could edit).
      if (keep.has(path) || inside === '' || inside.startsWith('..') || isAbsolute(inside)) continue;
      await rm(target, { force: true });
    }
    const index: FeedFilesIndex = {
      version: snapshot.version,
      generatedAt: snapshot.generatedAt,
      currency: snapshot.currency,
      files: written,
      ...(skippedUnits.length === 0 ? {} : { skippedUnits }),
    };
    const indexTemp = join(staging, INDEX_FILE);
    await writeFile(indexTemp, `${JSON.stringify(index, null, 2)}\n`);
    await rename(indexTemp, join(outDir, INDEX_FILE));
    return index;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
