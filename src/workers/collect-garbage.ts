import { setFlagsFromString } from 'node:v8';
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
