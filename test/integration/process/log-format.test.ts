import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { entryArgs } from '../../helpers/entry-args.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/**
 * `npm run sandbox`'s entry (`entryArgs`), its stdout a pipe (not a terminal); stopped with SIGTERM once it has
 * logged that it listens. Resolves with everything it wrote to stdout.
 */
async function sandboxOutput(env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, entryArgs('sandbox/main'), {
    cwd: root,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '',
      DOTENV_CONFIG_PATH: '/nonexistent/.env',
      HOST: '127.0.0.1',
      SANDBOX_PORT: '0',
      SANDBOX_ARTICLES: '10',
      SANDBOX_SALES_PER_MINUTE: '0',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
  });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (out.includes('sandbox POS listening') && child.exitCode === null) child.kill('SIGTERM');
  });
  await once(child, 'close');
  return out;
}

describe('LOG_FORMAT', () => {
  it('writes JSON lines by default when stdout is not a terminal', async () => {
    const out = await sandboxOutput({});

    const logLines = out.split('\n').filter((line) => line.startsWith('{'));
    expect(logLines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toContain('sandbox POS listening');
  });

  it('writes readable lines with LOG_FORMAT=pretty: time, level, name, message, fields on one line', async () => {
    const out = await sandboxOutput({ LOG_FORMAT: 'pretty' });

    const line = out.split('\n').find((candidate) => candidate.includes('sandbox POS listening'));
    expect(line).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(sandbox\): sandbox POS listening \{"url":"http:\/\/127\.0\.0\.1:\d+"/,
    );
    expect(out).not.toMatch(/^\{"level"/m);
    // Not a terminal: no colour codes in a file or pipe.
    expect(out).not.toContain('\u001b[');
  });
});
