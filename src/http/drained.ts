import type { ServerResponse } from 'node:http';

/** Settles when `res` can take more, or is closed; both listeners go once either fires. */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
