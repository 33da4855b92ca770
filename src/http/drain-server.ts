import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

export interface ServerDrain {
  /** Whether a drain has begun (`/readyz` then answers 503). */
  readonly started: boolean;
  /**
   * Stops accepting connections and lets every response in flight finish, within `graceMs`; then the
   * connections still open are cut. Resolves once the server is closed, with the number cut.
   */
  run(graceMs: number): Promise<{ readonly cut: number }>;
  /** Ends the grace period now (a second signal). */
  cut(): void;
}

/** How often a drain looks for connections that have finished their responses. */
const POLL_MS = 100;

/**
 * A graceful close of an HTTP server, to be made before it listens. Node's own `closeIdleConnections`
 * counts a connection as idle once its response has been ended, even while megabytes of a feed are still
 * in its socket's buffer for a slow client: closing it then cuts the download. So each connection's
 * requests are counted here, and a connection is closed only when it has none in flight and its socket
 * has handed every byte to the system. Responses that start during the drain end with `Connection: close`.
 */
export function createServerDrain(server: Server): ServerDrain {
  const inFlight = new Map<Socket, number>();
  let started = false;
  let cutNow = () => {};

  server.on('connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once('close', () => inFlight.delete(socket));
  });
  server.prependListener('request', (req, res) => {
    const socket = req.socket;
    if (inFlight.has(socket)) inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    if (started) res.shouldKeepAlive = false;
    res.once('close', () => {
      const count = inFlight.get(socket);
      if (count !== undefined) inFlight.set(socket, Math.max(0, count - 1));
    });
  });

  function closeFinished(): void {
    for (const [socket, count] of inFlight) {
      // end(), not destroy(): what is still buffered for the client is sent before the FIN.
      if (count === 0 && !socket.writableEnded) socket.end();
    }
  }

  return {
    get started() {
      return started;
    },
    run(graceMs) {
      started = true;
      return new Promise((resolve) => {
        let cut = 0;
        const poll = setInterval(closeFinished, POLL_MS);
        const cutAll = () => {
          clearInterval(poll);
          for (const [socket, count] of inFlight) {
            if (count > 0 || socket.writableLength > 0) cut += 1;
            socket.destroy();
          }
        };
        const grace = setTimeout(cutAll, graceMs);
        cutNow = () => {
          clearTimeout(grace);
          cutAll();
        };
        // net.Server's close, not http.Server's: that one also runs `closeIdleConnections`, which cuts
        // the downloads whose responses have been ended but not yet sent. This one only stops accepting
        // and calls back once every connection has closed.
        NetServer.prototype.close.call(server, () => {
          clearTimeout(grace);
          clearInterval(poll);
          resolve({ cut });
        });
        // Pollers keep connections alive between requests: those without a response in flight go at once.
        closeFinished();
      });
    },
    cut: () => cutNow(),
  };
}
