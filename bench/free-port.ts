import { once } from 'node:events';
import { createServer } from 'node:net';

/** A port free on 127.0.0.1 right now (for a child that must know its port before it listens). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  server.close();
  await once(server, 'close');
  return port;
}
