import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { describeListenError, probeListen } from '../../../src/http/listen-error.js';

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A real listener on a free loopback port; returns the port it holds. */
async function occupyPort(): Promise<number> {
  const server = createServer();
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The error Node gives when a second server listens on that port. */
async function listenErrorOn(port: number): Promise<unknown> {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  const [error] = await once(server, 'error');
  return error;
}

describe('describeListenError', () => {
  it('says in one line that PORT is in use, naming HOST and the port', async () => {
    const port = await occupyPort();
    const error = await listenErrorOn(port);

    const line = describeListenError(error, { host: '127.0.0.1', port });

    expect(line).toBe(
      `port ${port} is already in use (PORT=${port} on HOST=127.0.0.1): stop the program listening there or set PORT to a free port`,
    );
  });

  it('names the setting it is given (the sandbox has its own port)', async () => {
    const port = await occupyPort();
    const error = await listenErrorOn(port);

    expect(describeListenError(error, { host: '127.0.0.1', port, portVariable: 'SANDBOX_PORT' })).toContain(
      `SANDBOX_PORT=${port}`,
    );
  });

  it('explains a privileged port and an address that is not on this machine', () => {
    const eacces = Object.assign(new Error('listen EACCES'), { code: 'EACCES', syscall: 'listen', port: 80 });
    const notHere = Object.assign(new Error('listen EADDRNOTAVAIL'), { code: 'EADDRNOTAVAIL', syscall: 'listen', port: 3000 });

    expect(describeListenError(eacces, { host: '0.0.0.0', port: 80 })).toBe(
      'port 80 needs privileges this process does not have (PORT=80 on HOST=0.0.0.0): set PORT to 1024 or above',
    );
    expect(describeListenError(notHere, { host: '10.9.9.9', port: 3000 })).toContain('HOST=10.9.9.9 is not an address');
  });

  it('leaves other errors alone, and a busy port that is not this target', async () => {
    const port = await occupyPort();
    const error = await listenErrorOn(port);

    expect(describeListenError(error, { host: '127.0.0.1', port: port + 1 })).toBeUndefined();
    expect(describeListenError(new Error('boom'), { host: '127.0.0.1', port })).toBeUndefined();
    expect(describeListenError(undefined, { host: '127.0.0.1', port })).toBeUndefined();
  });
});

describe('probeListen', () => {
  it('reports a port held by another listener, and frees a free one again', async () => {
    const busy = await occupyPort();
    expect(await probeListen({ host: '127.0.0.1', port: busy })).toContain(`PORT=${busy}`);

    const free = await occupyPort();
    await new Promise((resolve) => servers.pop()?.close(resolve));
    expect(await probeListen({ host: '127.0.0.1', port: free })).toBeUndefined();
    // Let go of: the port can be listened on again right away.
    expect(await probeListen({ host: '127.0.0.1', port: free })).toBeUndefined();
  });
});
