// `node scripts/measure-worker-start.mjs <entry.js> [starts]`: the CPU (all threads) and wall time of starting a
// worker thread on a built entry and letting it end, median of `starts` (default 8). Decision 0015's figures:
// `dist/workers/catalog-worker.js` against `dist/workers/catalog-worker.bundle.js` (after `npm run build`);
// add `--enable-source-maps` before the script to measure as `npm start` runs. The catalog entry gets a POS
// it never calls; the entry is loaded and evaluated, no task runs.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const [entry, count = '8'] = process.argv.slice(2);
const starts = Number(count);
if (entry === undefined || !Number.isInteger(starts) || starts < 1) {
  console.error('usage: node scripts/measure-worker-start.mjs <entry.js> [starts]');
  process.exit(2);
}
const workerData = { pos: { baseUrl: 'http://127.0.0.1:9', apiKey: 'unused', timeoutMs: 1000 }, background: false };
const runs = [];
for (let run = 0; run < starts; run++) {
  const cpu = process.cpuUsage();
  const startedAt = performance.now();
  await new Promise((done, fail) => {
    const worker = new Worker(pathToFileURL(resolve(entry)), { workerData });
    worker.on('error', fail);
    worker.on('exit', done);
  });
  const used = process.cpuUsage(cpu);
  runs.push({ cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - startedAt });
}
const median = (values) => values.sort((a, b) => a - b)[values.length >> 1];
const cpuMs = median(runs.map((r) => r.cpuMs));
const wallMs = median(runs.map((r) => r.wallMs));
console.log(`${entry}: median of ${starts} starts: ${cpuMs.toFixed(0)} ms CPU, ${wallMs.toFixed(0)} ms wall`);
