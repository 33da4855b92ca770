import { type RenderedDocs, renderDocPages } from '../adapters/docs/doc-pages.js';
import { lowerThreadPriority } from './lower-thread-priority.js';

/** Entry of the thread that renders the documentation (`create-doc-pages.ts`). */
export interface DocsTask {
  /** The `docs/` folder. */
  readonly dir: string;
}

// The pages wait for the main thread on a busy machine, never the other way round.
lowerThreadPriority();

export default function renderDocs(task: DocsTask): Promise<RenderedDocs> {
  return renderDocPages(task.dir);
}
