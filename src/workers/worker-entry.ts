import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where a worker entry module is: the compiled `.js` beside this file (`npm start`, the image). When running
 * from the `.ts` sources (tests, benchmarks, `npm run dev`): the compiled entry in `dist/workers/` when
 * `dist/` is the build of exactly these sources (`npm run build` ran after the last change), else
 * `dev-entry.mjs`, which loads the `.ts` entry named in `workerData.entry` through tsx. A thread loading
 * the compiled entry starts in about half the CPU time of one loading the sources through tsx (each full
 * sync starts one; docs/decisions/0014-one-house.md, "The suite's time"). Pass `workerData` on as given.
 */
export function workerEntry(name: string, data: object): { readonly filename: string; readonly workerData: object } {
  if (!import.meta.url.endsWith('.ts')) return workerEntryAt(new URL(`./${name}.js`, import.meta.url), data);
  const compiled = new URL(`../../dist/workers/${name}.js`, import.meta.url);
  // The build info says current, but a half-removed dist/ may lack the entry: then the sources.
  const useCompiled = compiledBuildIsCurrent() && mtimeOf(fileURLToPath(compiled)) !== undefined;
  return workerEntryAt(useCompiled ? compiled : new URL(`./${name}.ts`, import.meta.url), data);
}

/** The same for an entry module given by its URL (tests stand in their own entries). */
export function workerEntryAt(entry: URL, data: object): { readonly filename: string; readonly workerData: object } {
  if (!entry.pathname.endsWith('.ts')) return { filename: entry.href, workerData: data };
  return { filename: new URL('./dev-entry.mjs', import.meta.url).href, workerData: { ...data, entry: entry.href } };
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
