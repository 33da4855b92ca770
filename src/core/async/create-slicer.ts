import { setImmediate as yieldToEventLoop } from 'node:timers/promises';

/** Default work per slice: well under the ~10 ms a request may wait behind the main thread. */
export const SLICE_MS = 5;

/**
 * Cuts a long loop on the main thread into slices: `await slicer.next()` after each unit of work lets
 * the event loop serve what waits (requests, webhooks, timers) once `budgetMs` of work has passed since
 * the last yield, and costs a clock read otherwise.
 *
 * @example
 * const slicer = createSlicer();
 * for (const product of products) { index(product); await slicer.next(); }
 */
export interface Slicer {
  /** Yields to the event loop when this slice's budget is spent. */
  next(): Promise<void> | undefined;
}

export function createSlicer(budgetMs = SLICE_MS): Slicer {
  let sliceStart = performance.now();
  return {
    next() {
      if (performance.now() - sliceStart < budgetMs) return undefined;
      return yieldToEventLoop().then(() => {
        sliceStart = performance.now();
      });
    },
  };
}

/**
 * `body(index)` for every index below `count`, in slices. The clock is read every `stride` iterations,
 * so that a loop of cheap steps does not spend its time reading it.
 */
export async function forEachSliced(
  count: number,
  body: (index: number) => void,
  options: { readonly budgetMs?: number; readonly stride?: number } = {},
): Promise<void> {
  const slicer = createSlicer(options.budgetMs);
  const stride = options.stride ?? 256;
  for (let start = 0; start < count; start += stride) {
    const end = Math.min(count, start + stride);
    for (let index = start; index < end; index += 1) body(index);
    await slicer.next();
  }
}
