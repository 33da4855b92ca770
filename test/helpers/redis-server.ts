import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
  /** SIGSTOP: the server keeps its connections and data but answers nothing (a stalled Redis). */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * Starts a throwaway real redis-server on a free loopback port, without persistence. `binary` comes from
 * the integration project's global setup (test/setup/redis-global-setup.ts), which finds or builds one.
 */
export async function startRedisServer(binary: string, options: { readonly port?: number } = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const child: ChildProcess = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const ready = new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 10_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${binary}: ${error.message}`));
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  await ready;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    async stop() {
      if (child.exitCode !== null) return;
      // A paused server would not act on SIGTERM.
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
