import { defineConfig } from 'vitest/config';

// Three projects (see docs/decisions/0001-project-layout.md): `vitest --project unit` is the fast loop.
// The integration and e2e projects' global setups find (or provision) redis-server and Chromium once per run.
export default defineConfig({
  test: {
    root: `${import.meta.dirname}/..`,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node' },
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
