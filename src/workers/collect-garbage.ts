import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A forced full GC for the calling worker thread. V8 collects a heap only as it nears its limit, which it
 * sizes for the whole machine: a worker that parses a 100,000-product catalog for a task keeps that
 * garbage (and the shared buffers its objects still point to) until the next task's allocations force a
 * collection, and the process's RSS grew past 2 GB during a burst of sales (bench/event-loop.ts). Worker
 * threads cannot be started with `--expose-gc`; the flag set at run time exposes `gc` to a new context, as
 * jest's leak detector does. A collection after a task costs that worker tens of milliseconds, none of
 * the main thread's.
 */
export function createGarbageCollector(): () => void {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;
  return () => collect();
}

/**
 * `collect`, run only once the thread's heap has grown by `growthBytes` since the last run (or since this
 * was made). For work that calls it often, such as after every few MB serialized: a forced full GC marks the
 * whole live heap (~150 ms at 300,000 × 5, more at 1,000,000), and when nothing much has died since the
 * last one (the serialization's products die young, in the young generation) it frees a few MB for that
 * price (bench/full-sync.ts with `--trace-gc`).
 */
export function collectOnGrowth(collect: () => void, growthBytes: number): () => void {
  let usedAfter = getHeapStatistics().used_heap_size;
  return () => {
    if (getHeapStatistics().used_heap_size - usedAfter < growthBytes) return;
    collect();
    usedAfter = getHeapStatistics().used_heap_size;
  };
}
