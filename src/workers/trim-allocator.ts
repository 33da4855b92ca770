import { createRequire } from 'node:module';

/**
 * Gives glibc's freed pages back to the system (`malloc_trim(0)`), through koffi (a maintained FFI library)
 * since Node has no binding for it. What threads free with `malloc` (the documents' row columns, zlib's
 * buffers) stays in glibc's arenas, in the middle of their heaps, where glibc's own trimming never reaches:
 * after a 1,000,000 × 5 full sync ~300 MiB of free arena space sat under the publish (decision 0023).
 *
 * A trim takes ~20–250 ms while it walks the arenas: `trimAllocator` runs it on koffi's own thread, for a
 * thread whose event loop must not wait; `trimAllocatorNow` on the calling thread, for a worker that waits for
 * it (the full sync's). Where the C library is not glibc (musl, macOS, Windows) or
 * koffi cannot load, both do nothing and say `false`.
 */

type MallocTrim = ((pad: number) => number) & {
  readonly async: (pad: number, done: (error: unknown, result: number) => void) => void;
};

// Loaded on first use (`prepareAllocatorTrim` or a trim): koffi's native module is needed only where a trim is asked for.
const require = createRequire(import.meta.url);
/** `undefined`: not loaded yet; `null`: no glibc here. */
let loaded: MallocTrim | null | undefined;
/** A trim in flight on koffi's thread: a second call meanwhile shares it rather than walking the arenas twice. */
let running: Promise<boolean> | undefined;

function mallocTrim(): MallocTrim | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (process.platform !== 'linux') return loaded;
  try {
    const koffi = require('koffi') as { load(path: string): { func(signature: string): unknown } };
    // Only glibc has `libc.so.6` with `malloc_trim` (musl's C library is another file): elsewhere this throws.
    loaded = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as MallocTrim;
  } catch {
    loaded = null;
  }
  return loaded;
}

/**
 * Loads koffi and finds `malloc_trim` now (~20 ms, once a process): for a thread that must not stall later,
 * called before it serves. `false` where there is no glibc.
 */
export function prepareAllocatorTrim(): boolean {
  return mallocTrim() !== null;
}

/** Trims on the calling thread; `true` once glibc was asked, `false` where it cannot be. */
export function trimAllocatorNow(): boolean {
  const trim = mallocTrim();
  if (trim === null) return false;
  trim(0);
  return true;
}

/** Trims on koffi's thread; resolves `true` once glibc was asked, `false` where it cannot be. Never rejects. */
export function trimAllocator(): Promise<boolean> {
  running ??= new Promise<boolean>((resolve) => {
    try {
      const trim = mallocTrim();
      if (trim === null) resolve(false);
      else trim.async(0, (error) => resolve(error === undefined || error === null));
    } catch {
      // koffi refuses an async call when its queue is full: no trim this time.
      resolve(false);
    }
  }).finally(() => {
    running = undefined;
  });
  return running;
}
