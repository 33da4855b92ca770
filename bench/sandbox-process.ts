import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { nodeFlagsFromEnv, packageScript } from './node-flags.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STARTUP_TIMEOUT_MS = 60_000;

export interface SandboxProcessOptions {
  readonly articles: number;
  readonly units: number;
  readonly apiKey: string;
  /** SANDBOX_WEBHOOK_URL; none by default. */
  readonly webhookUrl?: string;
}

export interface SandboxProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** SIGTERM, and waits for the exit. */
  stop(): Promise<void>;
}

/**
 * The heap flags `npm run sandbox` gives the standalone sandbox (package.json's `sandbox` script: its
 * `--max-*` flags), so that the benchmarks run it as that script does.
 */
export function sandboxHeapFlags(root: string): string[] {
  return [...packageScript(root, 'sandbox').matchAll(/(?<=\s)--max-[a-z-]+=\S+/g)].map((match) => match[0]);
}

/**
 * The standalone sandbox POS (`src/sandbox/main.ts`) in a child process on 127.0.0.1 (port 0, no
 * simulated sales), run with this process's Node flags (the tsx loader under `npx tsx`) and the heap flags of
 * `npm run sandbox`, so that its CPU and memory are apart from what a benchmark measures. Resolves once it
 * prints its URL.
 */
export async function startSandboxProcess(options: SandboxProcessOptions): Promise<SandboxProcess> {
  // BENCH_SANDBOX_ARGS: more flags for the sandbox's `node` (`--cpu-prof --cpu-prof-dir=DIR`: what the POS costs).
  const flags = [...process.execArgv, ...sandboxHeapFlags(ROOT), ...nodeFlagsFromEnv('BENCH_SANDBOX_ARGS')];
  const child = spawn(process.execPath, [...flags, join(ROOT, 'src/sandbox/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      TZ: 'UTC',
      HOST: '127.0.0.1',
      SANDBOX_PORT: '0',
      SANDBOX_ARTICLES: String(options.articles),
      SANDBOX_UNITS: String(options.units),
      SANDBOX_SALES_PER_MINUTE: '0',
      SANDBOX_API_KEY: options.apiKey,
      ...(options.webhookUrl === undefined ? {} : { SANDBOX_WEBHOOK_URL: options.webhookUrl }),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stdout = child.stdout;
  if (stdout === null) throw new Error('sandbox child has no stdout');
  const lines = createInterface({ input: stdout });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('sandbox did not start in time')), STARTUP_TIMEOUT_MS);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`sandbox exited with code ${code} before listening`));
      });
      lines.on('line', (line) => {
        const match = /Sandbox POS listening on (http:\/\/\S+)/.exec(line);
        if (match?.[1] !== undefined) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
    // Keep draining its stdout so the child never blocks on a full pipe.
    stdout.resume();
    return { url, child, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
