import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Flags for a benchmark's child `node` from the environment variable `name` (`'--cpu-prof --cpu-prof-dir=DIR'`),
 * split on spaces. Node refuses most such flags in NODE_OPTIONS, and a benchmark's children are started by it.
 */
export function nodeFlagsFromEnv(name: string): string[] {
  return (process.env[name] ?? '').split(' ').filter((flag) => flag !== '');
}

/** The text of package.json's script `name` (`''` when there is none): how `npm run` starts a process. */
export function packageScript(root: string, name: string): string {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  return manifest.scripts?.[name] ?? '';
}
