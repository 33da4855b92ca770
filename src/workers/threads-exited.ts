import type { Worker } from 'node:worker_threads';

/**
 * Settles when every one of `threads` has exited (its isolate and heap freed), or after `withinMs`,
 * whichever comes first; never rejects (a thread's `error` is its pool's to handle).
 */
export async function threadsExited(threads: readonly Worker[], withinMs: number): Promise<void> {
  // An exited thread's id is -1.
  const alive = threads.filter((thread) => thread.threadId !== -1);
  if (alive.length === 0) return;
  const cleanups: (() => void)[] = [];
  await new Promise<void>((resolve) => {
    let left = alive.length;
    const timer = setTimeout(resolve, withinMs);
    cleanups.push(() => clearTimeout(timer));
    for (const thread of alive) {
      const onExit = (): void => {
        left -= 1;
        if (left === 0) resolve();
      };
      thread.once('exit', onExit);
      cleanups.push(() => thread.off('exit', onExit));
    }
  });
  for (const cleanup of cleanups) cleanup();
}
