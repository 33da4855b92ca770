import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startApp } from '../../../src/app/start-app.js';
import { describeListenError } from '../../../src/http/listen-error.js';
import { entryArgs } from '../../helpers/entry-args.js';
import { createTestConfig } from '../../helpers/test-config.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function occupyPort(): Promise<number> {
  const server = createServer();
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** main (`entryArgs`), with a clean environment (no .env); resolves with its exit code and output. */
async function runMain(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, entryArgs('main'), {
    cwd: root,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', DOTENV_CONFIG_PATH: '/nonexistent/.env', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

describe('a port in use', () => {
  it('stops main with one line naming PORT, HOST and the port, exit code 1, no stack trace', async () => {
    const port = await occupyPort();

    const result = await runMain({ PORT: String(port), HOST: '127.0.0.1', STORE_URL: 'memory://', LOG_FORMAT: 'json' });

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `catalog-bridge: port ${port} is already in use (PORT=${port} on HOST=127.0.0.1): ` +
        'stop the program listening there or set PORT to a free port\n',
    );
    expect(result.stdout).toBe('');
  });

  it('is recognised when it fails the listen of a started app (taken after the start began)', async () => {
    const port = await occupyPort();
    const config = createTestConfig({ PORT: String(port), SANDBOX_ARTICLES: '20', SANDBOX_SALES_PER_MINUTE: '0' });

    const error = await startApp(config, { logger: pino({ level: 'silent' }) }).catch((caught: unknown) => caught);

    expect(describeListenError(error, config.http)).toContain(`PORT=${port} on HOST=127.0.0.1`);
  });
});
