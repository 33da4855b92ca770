import { type ChildProcess, spawn } from 'node:child_process';
import { entryArgs } from './entry-args.js';

const ROOT = `${import.meta.dirname}/../..`;

export interface BridgeProcess {
  readonly child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Its URL once it prints "listening on …", and its built-in sandbox's URL if it started one. */
  listening(timeoutMs?: number): Promise<{ url: string; posUrl: string | undefined }>;
}

/**
 * The bridge as `npm start` runs it (`dist/main.js`; see `entryArgs`), on 127.0.0.1 and a free port, with no
 * `.env`, a year between scheduled syncs, and `env` on top. Killed with SIGKILL by `killAll` if still
 * running.
 */
export function spawnBridge(env: Readonly<Record<string, string>>): BridgeProcess {
  const child = spawn(process.execPath, entryArgs('main'), {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DOTENV_CONFIG_PATH: '/nonexistent/.env',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
      CATALOG_SYNC_CRON: '0 0 1 1 *',
      STOCK_SYNC_CRON: '0 0 1 1 *',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.push(child);
  let out = '';
  const keep = (chunk: Buffer) => {
    out += chunk.toString('utf8');
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return {
    child,
    output: () => out,
    async listening(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline && child.exitCode === null) {
        const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
        if (url !== undefined) return { url, posUrl: /built-in sandbox at (http:\/\/\S+)/.exec(out)?.[1] };
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`the bridge did not start: ${out}`);
    },
  };
}

const spawned: ChildProcess[] = [];

/** For an `afterAll`: ends every bridge still running. */
export function killAll(): void {
  for (const child of spawned.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
}
