import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Screenshots of the console's pages, kept as artefacts of a test run (git-ignored, not committed). */
export const SCREENSHOTS_DIR = join(import.meta.dirname, '..', '..', 'test-artifacts', 'screenshots');

/** Headless Chromium for the browser tests: `executablePath` from the e2e project's global setup. */
export function launchChromium(executablePath: string | null): Promise<Browser> {
  return chromium.launch({
    ...(executablePath === null ? {} : { executablePath }),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
  });
}

/** Whether the page is wider than its window: a horizontal scroll bar (the tests' TypeScript has no DOM types). */
export async function scrollsSideways(page: Page): Promise<boolean> {
  return (await page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth')) === true;
}

/** Saves a full-page screenshot as `test-artifacts/screenshots/{name}.png`. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS_DIR, `${name}.png`), fullPage: true });
}
