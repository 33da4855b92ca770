'use strict';
// The file every worker thread starts (decision 0006). piscina loads a thread's file with `require()`
// first; on Node 20.19+ that loads an ES module synchronously, and a thread ended while such a module links
// aborts the whole process (`v8::Module::IsGraphAsync must be used on an instantiated module`, seen once in
// the suite). So the threads start this CommonJS file, which loads the entry named in `workerData.entry`
// with `import()`: a compiled `.js` entry or its bundle directly, a `.ts` one (tests, benchmarks) through
// tsx's scoped `tsImport`, as a worker thread on Node 20 does not get tsx's hooks from `--import`.
const { pathToFileURL } = require('node:url');
const { workerData } = require('node:worker_threads');

const entryUrl = workerData.entry;
const loaded = new URL(entryUrl).pathname.endsWith('.ts')
  ? import('tsx/esm/api').then(({ tsImport }) => tsImport(entryUrl, pathToFileURL(__filename).href))
  : import(entryUrl);
// A failed load is the first task's error (below), not the thread's before any task.
loaded.catch(() => {});

module.exports = async function run(message) {
  let entry;
  try {
    entry = await loaded;
  } catch (error) {
    // Node keeps a failed import's result, so this thread would fail every task: it ends once the task's
    // error is sent, and the pool's next task starts a thread that loads the entry again.
    setImmediate(() => process.exit(1));
    throw error;
  }
  return entry.default(message);
};
