import type { TestProject } from 'vitest/node';
import { resolveChromium, settle } from './test-binaries.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of a Chromium for the browser tests; `null` when there is none (they are skipped, never under CI). */
    chromiumPath: string | null;
  }
}

/** Global setup of the e2e project: finds (or installs) Chromium once for every test file. */
export async function setup(project: TestProject): Promise<void> {
  const resolution = await resolveChromium();
  project.provide(
    'chromiumPath',
    settle(resolution, {
      what: 'Chromium',
      skipped: 'the browser tests are',
      install: 'npx playwright-core install chromium, apt-get install chromium (Debian), or set CHROMIUM_PATH',
    }),
  );
}
