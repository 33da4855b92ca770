import { packageScript } from './node-flags.js';

/**
 * The glibc allocator settings (`MALLOC_*`) that `npm start` gives the bridge (package.json's start script,
 * decision 0017), each overridden by a `MALLOC_*` of this process's environment: the benchmarks run the
 * bridge as `npm start` does, and `MALLOC_ARENA_MAX=16 npx tsx bench/…` measures glibc's default on two cores.
 */
export function allocatorEnv(root: string): Record<string, string> {
  const start = packageScript(root, 'start');
  const fromStart = Object.fromEntries([...start.matchAll(/\b(MALLOC_[A-Z_]+)=(\S+)/g)].map((match) => [match[1], match[2]]));
  const fromHere = Object.entries(process.env).filter(
    (entry): entry is [string, string] => entry[0].startsWith('MALLOC_') && entry[1] !== undefined,
  );
  return { ...fromStart, ...Object.fromEntries(fromHere) } as Record<string, string>;
}
