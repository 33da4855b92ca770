import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Global setup of the integration and e2e projects: builds `dist/` (`npm run build`; a no-op when it is
 * current) so the processes and worker threads the tests start run the compiled code `npm start` runs, at
 * about half the start-up CPU of the sources through tsx. A failed build is not fatal here (`npm test` has
 * already type-checked): its build info is dated back, and everything runs from the sources instead.
 */
export function setup(): void {
  const result = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  if (result.status !== 0) {
    process.stderr.write(
      `build-global-setup: the build failed, the tests run the sources through tsx\n${result.stdout}${result.stderr}\n`,
    );
  }
}
