import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** The niceness of background worker threads (0 is normal, 19 the lowest priority). */
export const BACKGROUND_NICENESS = 10;

/**
 * Lowers the calling thread's scheduling priority, so that on a busy machine the main thread (requests,
 * webhooks) gets the CPU first and this thread's work (renders, stock re-reads) waits. On a 2-core machine
 * with the render and stock threads, the POS and the main thread all runnable, the main thread went
 * 140 ms without the CPU in a burst of sales (bench/event-loop.ts). Linux applies a niceness per thread,
 * addressed by its id (`/proc/thread-self`); elsewhere this does nothing, and lowering is never refused.
 */
export function lowerThreadPriority(niceness = BACKGROUND_NICENESS): boolean {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    if (!Number.isInteger(threadId) || threadId <= 0) return false;
    setPriority(threadId, niceness);
    return true;
  } catch {
    return false;
  }
}
