import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import which from 'which';

/**
 * Finds (and where it can, provisions) the programs some tests need besides Node: `redis-server` for the
 * Redis store contract tests and Chromium for the browser tests. Used by the vitest global setups, so the
 * search and any download run once per run, not per test file. See the README ("Tests").
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Building Redis from source takes 1-2 minutes on two cores; downloading Chromium about as long. */
const PROVISION_TIMEOUT_MS = 5 * 60_000;

export interface Resolution {
  /** Absolute path of the program, or `undefined` when it could not be had. */
  readonly path: string | undefined;
  /** How it was found, or why not (one line). */
  readonly how: string;
}

export interface BoundedRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/**
 * Runs a command in its own process group and kills the whole group (a `make` started by it too) when it
 * outlives `timeoutMs`: provisioning never holds the test run longer than that.
 */
export function runBounded(command: string, args: readonly string[], timeoutMs: number): Promise<BoundedRun> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}${error.message}`, timedOut });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A path given in an environment variable must be right: a wrong one is an error, never a skip. */
async function fromEnv(variable: string): Promise<Resolution | undefined> {
  const value = process.env[variable]?.trim();
  if (value === undefined || value === '') return undefined;
  if (!(await isExecutable(value))) throw new Error(`${variable}=${value} is not an executable file`);
  return { path: value, how: `${variable}` };
}

async function onPath(names: readonly string[]): Promise<Resolution | undefined> {
  for (const name of names) {
    const path = await which(name, { nothrow: true });
    if (path !== null) return { path, how: `${name} on PATH` };
  }
  return undefined;
}

/** The most telling line of a failed run: the last error-looking line, else the last line. */
function reasonOf(run: BoundedRun, timeoutMs: number): string {
  if (run.timedOut) return `gave up after ${Math.round(timeoutMs / 1000)} s`;
  const lines = `${run.stderr}\n${run.stdout}`
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const errorLine = lines.find((line) => /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|Error:/.test(line));
  return (errorLine ?? lines.at(-1) ?? `exit code ${run.code}`).replace(/^Error:\s*/, '').slice(0, 160);
}

/**
 * `redis-server` from REDIS_SERVER_BINARY, PATH, or built once by redis-memory-server (a maintained package
 * that downloads the Redis source and compiles it; it needs `make` and a C compiler). Its build is cached in
 * ~/.cache/redis-binaries so that `npm ci` does not throw it away (REDISMS_DOWNLOAD_DIR overrides). The
 * package's own install-time build is disabled in package.json ("redisMemoryServer"), so `npm ci` never
 * downloads anything; the build happens here, on the first test run that needs it.
 */
export async function resolveRedisServer(timeoutMs = PROVISION_TIMEOUT_MS): Promise<Resolution> {
  const found = (await fromEnv('REDIS_SERVER_BINARY')) ?? (await onPath(['redis-server']));
  if (found !== undefined) return found;
  const downloadDir = process.env['REDISMS_DOWNLOAD_DIR'] ?? join(homedir(), '.cache', 'redis-binaries');
  const script = `import('redis-memory-server').then(async ({ RedisBinary }) => {
    process.stdout.write('\\nRESOLVED ' + (await RedisBinary.getPath({ downloadDir: ${JSON.stringify(downloadDir)} })) + '\\n');
  })`;
  const run = await runBounded(process.execPath, ['--input-type=module', '-e', script], timeoutMs);
  const path = /^RESOLVED (.+)$/m.exec(run.stdout)?.[1];
  if (run.code === 0 && path !== undefined && (await isExecutable(path))) {
    return { path, how: `built by redis-memory-server in ${downloadDir}` };
  }
  return { path: undefined, how: `redis-memory-server could not build one: ${reasonOf(run, timeoutMs)}` };
}

/** Where this playwright-core version keeps (or would keep) its Chromium. */
async function playwrightChromium(): Promise<string> {
  const { chromium } = await import('playwright-core');
  return chromium.executablePath();
}

/**
 * Chromium from CHROMIUM_PATH, PATH, or Playwright's browser cache; else installed there by Playwright's own
 * installer (`playwright-core install chromium`, which honours PLAYWRIGHT_BROWSERS_PATH).
 */
export async function resolveChromium(timeoutMs = PROVISION_TIMEOUT_MS): Promise<Resolution> {
  const found =
    (await fromEnv('CHROMIUM_PATH')) ?? (await onPath(['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']));
  if (found !== undefined) return found;
  const cached = await playwrightChromium();
  if (await isExecutable(cached)) return { path: cached, how: "Playwright's browser cache" };
  const cli = join(dirname(createRequire(import.meta.url).resolve('playwright-core/package.json')), 'cli.js');
  const run = await runBounded(process.execPath, [cli, 'install', 'chromium'], timeoutMs);
  if (run.code === 0 && (await isExecutable(cached))) return { path: cached, how: "installed by Playwright's installer" };
  return { path: undefined, how: `Playwright's installer could not install it: ${reasonOf(run, timeoutMs)}` };
}

/** CI=true (as `.ci/run` sets it) turns a missing program into a failed run instead of skipped tests. */
export function isCi(): boolean {
  const value = process.env['CI']?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== 'false' && value !== '0';
}

/**
 * What a global setup does with a resolution: the path, or one line saying what is skipped and what to
 * install (thrown under CI, so that a machine without the program never passes by skipping).
 */
export function settle(resolution: Resolution, missing: { what: string; skipped: string; install: string }): string | null {
  if (resolution.path !== undefined) return resolution.path;
  const missingLine = `${missing.what} not found (${resolution.how})`;
  if (isCi()) throw new Error(`${missingLine}. CI is set, so this fails the run. Install it: ${missing.install}`);
  process.stderr.write(`\n⚠ ${missingLine}: ${missing.skipped} skipped. Install it: ${missing.install}\n`);
  return null;
}
