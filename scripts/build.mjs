// `npm run build`, and the step before `npm start`, `npm run sandbox` and `npm run cli`: compiles src/ to dist/
// only when a source is newer than the last build, so a start on a built tree costs a few milliseconds here.
// Plain JavaScript on purpose: it runs before anything is compiled (and in the Docker image's build stage).
//
// - Nothing in src/ (files, or folders, whose times change when a file is added, deleted or renamed) nor
//   tsconfig.json newer than dist/.tsbuildinfo, and every source has its output: nothing to do, TypeScript is
//   not even loaded.
// - Otherwise `tsc -b`, incremental (tsconfig.json: `incremental`, build info in dist/.tsbuildinfo): it
//   re-emits what changed. An output missing from dist/ forces a full emit (`tsc -b` trusts its build info).
// - Then outputs whose source is gone (a deleted or renamed file) are removed, so dist/ never runs stale code.
// - A failed build (type errors) fails the command, and again on the next run until the error is fixed.
// - Each worker thread's entry is also bundled with its dependencies into one file beside it
//   (`dist/workers/<name>.bundle.js`, esbuild): the bridge starts a thread per full sync, and a thread that
//   loads ~400 files (undici's and zod's among them) spends ~0.6 s of CPU doing so; from one file ~0.3 s
//   (docs/decisions/0015-worker-bundles.md). Rebuilt whenever the compiled tree changed.
// - The file every worker thread starts, `src/workers/thread-entry.cjs` (plain CommonJS, not compiled), is
//   copied beside them.
// - Without the build tools (a production install, dev dependencies omitted or pruned) the existing build is
//   used as it is, and a missing one is a clear error, never a half-built tree.
import { spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, rmdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
const BUILD_INFO = join(DIST, '.tsbuildinfo');
const force = process.argv.includes('--force');

/** Every file and folder below `dir` (folders too: their times say that an entry came or went). */
function walk(dir, onEntry) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    onEntry(path, entry.isDirectory());
    if (entry.isDirectory()) walk(path, onEntry);
  }
}

function mtimeOf(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The compiled file of a source, relative to dist/ (`a/b.ts` → `a/b.js`); `undefined` when none is emitted. */
function outputOf(sourcePath) {
  const rel = relative(SRC, sourcePath);
  if (rel.endsWith('.d.ts') || !rel.endsWith('.ts')) return undefined;
  return `${rel.slice(0, -3)}.js`;
}

function needsBuild() {
  const built = mtimeOf(BUILD_INFO);
  if (force || built === undefined) return { build: true, full: force };
  let newer = (mtimeOf(join(ROOT, 'tsconfig.json')) ?? Number.POSITIVE_INFINITY) > built || (mtimeOf(SRC) ?? 0) > built;
  let missing = false;
  walk(SRC, (path, isDir) => {
    if (!newer && (mtimeOf(path) ?? 0) > built) newer = true;
    const output = isDir ? undefined : outputOf(path);
    if (!missing && output !== undefined && mtimeOf(join(DIST, output)) === undefined) missing = true;
  });
  return { build: newer || missing, full: missing };
}

function compile(full) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const args = [tsc, '-b', join(ROOT, 'tsconfig.json'), ...(full ? ['--force'] : [])];
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    // tsc still writes its build info after a type error: dated back, the next run asks tsc again (and is
    // told the errors again) instead of taking the tree for built.
    if (mtimeOf(BUILD_INFO) !== undefined) utimesSync(BUILD_INFO, 0, 0);
    process.exit(result.status ?? 1);
  }
  // tsc leaves its build info alone when nothing it emits changed (a README edited under src/, a file
  // touched): dated now, the tree counts as built until the next change (here and in
  // src/workers/worker-entry.ts), instead of calling tsc at every start.
  if (mtimeOf(BUILD_INFO) !== undefined) {
    const now = new Date();
    utimesSync(BUILD_INFO, now, now);
  }
}

/** Removes compiled files (and their source maps) whose source no longer exists, then emptied folders. */
function pruneStaleOutputs() {
  const expected = new Set();
  walk(SRC, (path, isDir) => {
    const output = isDir ? undefined : outputOf(path);
    if (output !== undefined) expected.add(output);
  });
  const folders = [];
  walk(DIST, (path, isDir) => {
    if (isDir) {
      folders.push(path);
      return;
    }
    const rel = relative(DIST, path);
    const compiled = rel.endsWith('.js.map') ? rel.slice(0, -4) : rel;
    if (compiled.endsWith('.js') && !expected.has(compiled) && bundleOf(compiled) === undefined) rmSync(path, { force: true });
  });
  // Deepest first, so a folder emptied by its sub-folders' removal goes too.
  for (const folder of folders.reverse()) {
    if (readdirSync(folder).length === 0) rmdirSync(folder);
  }
}

/** The worker entries run from bundles (src/workers/worker-entry.ts names the same). */
const WORKER_BUNDLES = ['catalog-worker', 'render-worker', 'docs-worker'];

/** `dist/workers/<name>.bundle.js` of an entry, or `undefined` for anything else. */
function bundleOf(rel) {
  const match = /^workers\/(.+)\.bundle\.js$/.exec(rel);
  return match !== null && WORKER_BUNDLES.includes(match[1]) ? match[1] : undefined;
}

async function bundleWorkers() {
  // Stale after a build, and after an install (the bundles hold the packages' code too).
  const installed = mtimeOf(join(ROOT, 'node_modules', '.package-lock.json')) ?? 0;
  const built = Math.max(mtimeOf(BUILD_INFO) ?? Number.POSITIVE_INFINITY, installed);
  const stale = WORKER_BUNDLES.filter((name) => (mtimeOf(join(DIST, 'workers', `${name}.bundle.js`)) ?? 0) < built);
  if (stale.length === 0) return;
  const { build: bundle } = await import('esbuild');
  await bundle({
    entryPoints: Object.fromEntries(stale.map((name) => [`${name}.bundle`, join(DIST, 'workers', `${name}.js`)])),
    outdir: join(DIST, 'workers'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    sourcemap: 'linked',
    // Stack traces point into src/ (the compiled files' own maps are followed); the sources stay out of the map.
    sourcesContent: false,
    logLevel: 'warning',
    // piscina's `move` marks results with a symbol of its own module instance: the worker must share the
    // pool's copy. exceljs is loaded on first use only (an xlsx feed or sheet), as it is unbundled. koffi
    // loads its native module from its own package (src/workers/trim-allocator.ts).
    external: ['piscina', 'exceljs', 'koffi'],
    // The bundled CommonJS packages (undici) call `require` for Node's built-in modules.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
  });
}

/** The file every worker thread starts (src/workers/thread-entry.cjs, plain CommonJS), copied when changed. */
const THREAD_ENTRY = join('workers', 'thread-entry.cjs');

function copyThreadEntry() {
  const from = join(SRC, THREAD_ENTRY);
  const to = join(DIST, THREAD_ENTRY);
  if ((mtimeOf(to) ?? 0) < (mtimeOf(from) ?? 0)) copyFileSync(from, to);
}

/** Whether the build tools (dev dependencies) are installed: not after `npm ci --omit=dev` or `npm prune --omit=dev`. */
function hasBuildTools() {
  const require = createRequire(import.meta.url);
  try {
    require.resolve('typescript/bin/tsc');
    require.resolve('esbuild');
    return true;
  } catch {
    return false;
  }
}

/**
 * A production install (README, "Running it as a service"): built once where the dev dependencies were
 * installed, then pruned. The build there is used as it is; without one, say how to make it.
 */
function checkProductionBuild() {
  const missing = ['main.js', 'cli.js', THREAD_ENTRY, ...WORKER_BUNDLES.map((name) => `workers/${name}.bundle.js`)].filter(
    (file) => mtimeOf(join(DIST, file)) === undefined,
  );
  if (missing.length === 0) return;
  process.stderr.write(
    `catalog-bridge: dist/ has no complete build of this version (${missing.join(', ')} missing) and the build tools are not installed ` +
      '(npm ci --omit=dev). Build first with every dependency: npm ci && npm run build && npm prune --omit=dev\n',
  );
  process.exit(1);
}

/** A `git pull` without a rebuild would run the old code beside the new templates and docs: say so. */
function warnIfStale() {
  if (mtimeOf(BUILD_INFO) === undefined || mtimeOf(SRC) === undefined || !needsBuild().build) return;
  process.stderr.write(
    'catalog-bridge: src/ has changed since dist/ was built; the old build runs. Rebuild with every dependency: ' +
      'npm ci && npm run build && npm prune --omit=dev\n',
  );
}

if (!hasBuildTools()) {
  checkProductionBuild();
  warnIfStale();
  process.exit(0);
}
const { build, full } = needsBuild();
if (build) compile(full);
if (mtimeOf(DIST) !== undefined) {
  pruneStaleOutputs();
  await bundleWorkers();
  copyThreadEntry();
}
