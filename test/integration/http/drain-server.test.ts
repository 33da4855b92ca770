import { once } from 'node:events';
import { Agent, createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createServerDrain, type ServerDrain } from '../../../src/http/drain-server.js';

/** The graceful close of the HTTP server (docs/failure-modes.md), over real sockets on loopback. */

const BODY = Buffer.alloc(8_000_000, 0x61);
const servers: Server[] = [];

afterEach(() => {
  for (const server of servers.splice(0)) server.closeAllConnections();
});

async function start(): Promise<{ server: Server; drain: ServerDrain; port: number }> {
  const server = createServer((req, res) => {
    if (req.url === '/stall') {
      // Headers, a first chunk, and the rest never: a response that cannot finish.
      res.writeHead(200, { 'content-length': '10' });
      res.write('12345');
      return;
    }
    if (req.url === '/small') {
      res.end('ok');
      return;
    }
    res.setHeader('content-length', String(BODY.length));
    res.end(BODY);
  });
  const drain = createServerDrain(server);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, drain, port: (server.address() as AddressInfo).port };
}

async function get(port: number, path: string, agent?: Agent): Promise<IncomingMessage> {
  const req = request({ host: '127.0.0.1', port, path, ...(agent === undefined ? {} : { agent }) });
  req.end();
  const [response] = (await once(req, 'response')) as [IncomingMessage];
  return response;
}

function bodyOf(response: IncomingMessage): Promise<{ bytes: number; complete: boolean }> {
  return new Promise((resolve) => {
    let bytes = 0;
    response.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    response.on('end', () => resolve({ bytes, complete: response.complete }));
    response.on('aborted', () => resolve({ bytes, complete: false }));
    response.on('error', () => resolve({ bytes, complete: false }));
  });
}

describe('http/ drain-server', () => {
  it('lets a slow download whose response was already ended finish, then closes', async () => {
    const { drain, port } = await start();
    const response = await get(port, '/big');
    const body = bodyOf(response);
    await once(response, 'data');
    response.pause();
    const drained = drain.run(30_000);
    expect(drain.started).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    response.resume();
    expect(await body).toEqual({ bytes: BODY.length, complete: true });
    expect(await drained).toEqual({ cut: 0 });
  });

  it('closes kept-alive idle connections at once, and refuses new ones', async () => {
    const { drain, port } = await start();
    const agent = new Agent({ keepAlive: true });
    const response = await get(port, '/small', agent);
    await bodyOf(response);
    expect(await drain.run(30_000)).toEqual({ cut: 0 });
    await expect(get(port, '/small')).rejects.toThrow();
    agent.destroy();
  });

  it('cuts a response that cannot finish when the grace period ends, and counts it', async () => {
    const { drain, port } = await start();
    const response = await get(port, '/stall');
    const body = bodyOf(response);
    expect(await drain.run(200)).toEqual({ cut: 1 });
    expect((await body).complete).toBe(false);
  });

  it('cuts at once when asked to (a second signal)', async () => {
    const { drain, port } = await start();
    const response = await get(port, '/stall');
    const body = bodyOf(response);
    const drained = drain.run(60_000);
    drain.cut();
    expect(await drained).toEqual({ cut: 1 });
    expect((await body).complete).toBe(false);
  });
});
