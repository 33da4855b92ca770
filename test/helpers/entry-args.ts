import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compiledBuildIsCurrent } from '../../src/workers/worker-entry.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The node arguments that run one of the bridge's entries (`main`, `cli`, `sandbox/main`) as a process: the
 * compiled `dist/` entry, as `npm start` runs it, when `dist/` is the build of the sources as they are (the
 * suite's global setup builds it); else the `.ts` source through tsx, so an edit is never tested stale.
 */
export function entryArgs(entry: 'main' | 'cli' | 'sandbox/main'): string[] {
  return compiledBuildIsCurrent() && existsSync(`${ROOT}dist/${entry}.js`)
    ? ['--enable-source-maps', `${ROOT}dist/${entry}.js`]
    : ['--import', 'tsx', `${ROOT}src/${entry}.ts`];
}
