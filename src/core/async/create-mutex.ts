/**
 * Runs tasks one at a time, in call order. The catalog and stock syncs share one: both publish a new
 * version derived from the served one, and two at once would base one publish on a stale catalog.
 */
export function createMutex(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}
