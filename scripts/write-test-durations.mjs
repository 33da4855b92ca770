// `npm run test:durations`: after a whole run with vitest's JSON reporter
// (`npx vitest run --config test/vitest.config.ts --reporter=json --outputFile=<file>`), writes each test
// file's duration to test/setup/file-durations.json, the order a clean clone runs the files in
// (test/setup/duration-sequencer.ts). Refresh it when files are added, split or grow much slower.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const report = process.argv[2];
if (report === undefined) {
  console.error('usage: node scripts/write-test-durations.mjs <vitest JSON report>');
  process.exit(2);
}
const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
const durations = Object.fromEntries(
  testResults
    .map((file) => [relative(ROOT, file.name), Math.round((file.endTime - file.startTime) / 100) / 10])
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(join(ROOT, 'test/setup/file-durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
console.log(`${Object.keys(durations).length} files written to test/setup/file-durations.json`);
