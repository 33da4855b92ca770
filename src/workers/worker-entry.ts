import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where a worker entry module is. Compiled (`npm start`, the image): the entry's bundle beside this file
 * (`<name>.bundle.js`, made by `npm run build` with its dependencies in one file: a thread loading it
 * starts in about half the CPU time of one loading the ~400 compiled files; decision 0015), else the
 * compiled `.js`. When running from the `.ts` sources (tests, benchmarks, `npm run dev`): the same from
 * `dist/workers/` when `dist/` is the build of exactly these sources (`npm run build` ran after the last
 * change), else the `.ts` entry itself, loaded through tsx (about twice the compiled entry's CPU;
 * docs/decisions/0014-one-house.md, "The suite's time"). Every thread starts `thread-entry.cjs`, which
 * imports the entry named in `workerData.entry`; the rest of `workerData` is passed on as given.
 */
export function workerEntry(name: string, data: object): { readonly filename: string; readonly workerData: object } {
  // tsx may add a query to a module's URL (`?tsx-namespace=…`, in a thread that registered it itself).
  if (!new URL(import.meta.url).pathname.endsWith('.ts')) {
    const here = new URL('./', import.meta.url);
    return workerEntryAt(compiledEntry(here, name) ?? new URL(`./${name}.js`, here), data);
  }
  const dist = new URL('../../dist/workers/', import.meta.url);
  const compiled = compiledBuildIsCurrent() ? compiledEntry(dist, name) : undefined;
  return workerEntryAt(compiled ?? new URL(`./${name}.ts`, import.meta.url), data);
}

const compiledEntries = new Map<string, URL | undefined>();

/** The bundle, else the compiled entry, in `dir`; `undefined` when neither exists (a half-removed dist/). */
function compiledEntry(dir: URL, name: string): URL | undefined {
  const key = `${dir.href}${name}`;
  if (!compiledEntries.has(key)) {
    const found = [`${name}.bundle.js`, `${name}.js`]
      .map((file) => new URL(file, dir))
      .find((url) => mtimeOf(fileURLToPath(url)) !== undefined);
    compiledEntries.set(key, found);
  }
  return compiledEntries.get(key);
}

/** The same for an entry module given by its URL (tests stand in their own entries). */
export function workerEntryAt(entry: URL, data: object): { readonly filename: string; readonly workerData: object } {
  return { filename: new URL('./thread-entry.cjs', import.meta.url).href, workerData: { ...data, entry: entry.href } };
}

let current: boolean | undefined;

/**
 * Whether `dist/` was built from the sources as they are: its build info (written by `tsc -b`, dated back by
 * `scripts/build.mjs` after a failed build) is newer than every file and folder under `src/` (a folder's
 * time changes when an entry is added, removed or renamed). Checked once per process (~400 `stat`s): a
 * change to the sources restarts the process in `npm run dev`, and nothing else edits them while it runs.
 */
export function compiledBuildIsCurrent(): boolean {
  if (current !== undefined) return current;
  const builtAt = mtimeOf(fileURLToPath(new URL('../../dist/.tsbuildinfo', import.meta.url)));
  current = builtAt !== undefined && newestUnder(fileURLToPath(new URL('../', import.meta.url))) < builtAt;
  return current;
}

function newestUnder(dir: string): number {
  let newest = mtimeOf(dir) ?? Number.POSITIVE_INFINITY;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(path) : (mtimeOf(path) ?? Number.POSITIVE_INFINITY));
  }
  return newest;
}

function mtimeOf(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}
