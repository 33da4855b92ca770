import { Piscina } from 'piscina';
import { createDocPages, type DocPages, type RenderedDocs } from '../adapters/docs/doc-pages.js';
import type { DocsTask } from './docs-worker.js';
import { workerEntry } from './worker-entry.js';

/**
 * The documentation of `dir`, rendered on the first request in a thread of its own that ends when it is
 * done (decision 0006: nothing of ~10 ms or more on the main thread once it listens). Nothing to close:
 * the thread lives only for that one render.
 */
export function createWorkerDocPages(dir: string): DocPages {
  return createDocPages(async (): Promise<RenderedDocs> => {
    const pool = new Piscina({ ...workerEntry('docs-worker', {}), minThreads: 0, maxThreads: 1 });
    try {
      const task: DocsTask = { dir };
      return (await pool.run(task)) as RenderedDocs;
    } finally {
      await pool.destroy();
    }
  });
}
