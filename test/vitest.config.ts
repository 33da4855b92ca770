import { defineConfig } from 'vitest/config';

// Three projects (see docs/decisions/0001-project-layout.md): `vitest --project unit` is the fast loop.
// The integration and e2e projects' global setups find (or provision) redis-server and Chromium once per run.
// The three run at the same time, in one pool of workers.
export default defineConfig({
  test: {
    root: `${import.meta.dirname}/..`,
    // Vitest's default in `run` is one worker less than the cores: a single worker on a 2-core machine. Most
    // integration and e2e time is spent waiting (sockets, child processes, a POS that hangs on purpose), so
    // one worker per core keeps both busy; measured on the unit project and the whole suite (issue 24).
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          // Pure tests that leave no global state behind (no module mocks; stubs are undone after each test):
          // worker threads, and the modules loaded once per worker rather than once per file.
          pool: 'threads',
          isolate: false,
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
          globalSetup: ['test/setup/redis-global-setup.ts'],
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
          globalSetup: ['test/setup/chromium-global-setup.ts'],
        },
      },
    ],
  },
});
