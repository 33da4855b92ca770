import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { entryArgs } from '../helpers/entry-args.js';

const ROOT = `${import.meta.dirname}/../..`;
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Runs `npm run sandbox`'s entry (`entryArgs`: compiled, or the source when the build is stale), with a controlled environment. */
function runMain(env: Record<string, string>): { child: ChildProcess; stdout: () => string; stderr: () => string } {
  const child = spawn(process.execPath, entryArgs('sandbox/main'), {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  return { child, stdout: () => out, stderr: () => err };
}

async function waitForUrl(stdout: () => string, child: ChildProcess): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (let attempt = 0; attempt < 3_000 && Date.now() < deadline; attempt++) {
    const match = /listening on (http:\/\/\S+)/.exec(stdout());
    if (match?.[1] !== undefined) return match[1];
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`sandbox did not print its URL: ${stdout()}`);
}

describe('sandbox/main (npm run sandbox)', () => {
  it('starts from the SANDBOX_* variables, prints URL and key, serves, and exits 0 on SIGTERM', async () => {
    const { child, stdout } = runMain({
      HOST: '127.0.0.1',
      SANDBOX_PORT: '0',
      SANDBOX_UNITS: '2',
      SANDBOX_ARTICLES: '40',
      SANDBOX_SALES_PER_MINUTE: '0',
      SANDBOX_API_KEY: 'main-test-key',
    });

    const url = await waitForUrl(stdout, child);
    const response = await request(`${url}/ext/unit/list`, {
      method: 'POST',
      headers: { 'x-api-key': 'main-test-key', 'content-type': 'application/json' },
      body: '{}',
    });
    const body = (await response.body.json()) as { data: { total: number } };
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = await exited;

    expect(stdout()).toContain('main-test-key');
    expect(body.data.total).toBe(2);
    expect(code).toBe(0);
  });

  it('prints every configuration problem to stderr and exits 2', async () => {
    const { child, stderr } = runMain({ SANDBOX_UNITS: '99', SANDBOX_SEED: 'abc' });

    const [code] = await once(child, 'exit');

    expect(code).toBe(2);
    expect(stderr()).toContain('SANDBOX_UNITS');
    expect(stderr()).toContain('SANDBOX_SEED');
  });
});
