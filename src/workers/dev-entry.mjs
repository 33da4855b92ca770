// Entry of worker threads when the bridge runs from its TypeScript sources (tests, benchmarks; `npm start`
// runs the compiled `.js` entries directly). On Node 20 a worker thread does not get tsx's module hooks
// from `--import`, so the `.ts` entry named in `workerData.entry` is loaded with tsx's scoped `tsImport`.
import { workerData } from 'node:worker_threads';

const { tsImport } = await import('tsx/esm/api');
const entry = await tsImport(workerData.entry, import.meta.url);

export default function run(message) {
  return entry.default(message);
}
