import { defineConfig } from 'vitest/config';
import { DurationSequencer } from './setup/duration-sequencer.js';

// Three projects (see docs/decisions/0001-project-layout.md): `vitest --project unit` is the fast loop.
// The integration and e2e projects' global setups find (or provision) redis-server and Chromium once per run.
// The three run at the same time, in one pool of workers.
export default defineConfig({
  test: {
    root: `${import.meta.dirname}/..`,
    // Vitest's default in `run` is one worker less than the cores: a single worker on a 2-core machine. Most
    // integration and e2e time is waiting (sockets, child processes, a POS that hangs on purpose): with two
    // workers the suite kept 1.4 of the 2 cores busy (432 s), with three 1.85 (305 s); measured in issue 24.
    // With four, 257 s against three's 284 s on the same tree (issue 25, 2026-11-29, one run each).
    maxWorkers: 4,
    // Test files share their worker's module cache (no fresh module graph per file): the app's ~400 modules
    // load once per worker, not once per file (import time 158 s → 45 s over the suite). Tests leave no
    // global state behind: no module mocks; stubs, timers, servers and processes are undone in their hooks.
    isolate: false,
    // The longest files first, across the projects, by the last run's durations (a clean clone's from
    // test/setup/file-durations.json): measured in issue 24, the run's end no longer waits on one late long file.
    sequence: { sequencer: DurationSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          // Pure tests: worker threads rather than processes.
          pool: 'threads',
          // The property and 100,000-row tests are CPU-bound: on 2 cores shared with other work they take
          // several seconds. A test that hangs still fails; no test asserts a duration.
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          // A file's setup may run a full sync (the CLI's, a hostile POS's good one): seconds each on a loaded
          // machine, past vitest's default 10 s (seen with four workers).
          hookTimeout: 30_000,
          globalSetup: ['test/setup/build-global-setup.ts', 'test/setup/redis-global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          globalSetup: ['test/setup/build-global-setup.ts', 'test/setup/chromium-global-setup.ts'],
        },
      },
    ],
  },
});
