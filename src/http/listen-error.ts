import { createServer } from 'node:net';

/** Where a server was told to listen, and the settings that say so (named in the message). */
export interface ListenTarget {
  readonly host: string;
  readonly port: number;
  readonly hostVariable?: string;
  readonly portVariable?: string;
}

interface ListenFailure {
  readonly code?: unknown;
  readonly syscall?: unknown;
  readonly port?: unknown;
}

/**
 * One line for a failure to listen that the configuration can fix (port taken, privileged port, an address
 * not on this machine), naming the setting and its value; `undefined` for any other error, which stays an
 * error with its stack. Only failures of this target's own listen count: its port (any, for port 0).
 */
export function describeListenError(error: unknown, target: ListenTarget): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const { code, syscall, port } = error as ListenFailure;
  if (syscall !== 'listen' && syscall !== 'getaddrinfo') return undefined;
  if (syscall === 'listen' && target.port !== 0 && port !== target.port) return undefined;
  const hostName = target.hostVariable ?? 'HOST';
  const portName = target.portVariable ?? 'PORT';
  const where = `${portName}=${target.port} on ${hostName}=${target.host}`;
  switch (code) {
    case 'EADDRINUSE':
      return `port ${target.port} is already in use (${where}): stop the program listening there or set ${portName} to a free port`;
    case 'EACCES':
      return `port ${target.port} needs privileges this process does not have (${where}): set ${portName} to 1024 or above`;
    case 'EADDRNOTAVAIL':
      return `${hostName}=${target.host} is not an address of this machine: set ${hostName} to one of its addresses, or 0.0.0.0 for all`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${hostName}=${target.host} cannot be resolved to an address: set ${hostName} to an address such as 127.0.0.1 or 0.0.0.0`;
    default:
      return undefined;
  }
}

/**
 * Tries the target's address and port once and lets go of it: a start can say "port in use" at once, before
 * it spends a sync, instead of after. The real listen still reports any failure (the port can be taken in
 * between). `undefined` when the port was free (or is 0: any free port).
 */
export async function probeListen(target: ListenTarget): Promise<string | undefined> {
  if (target.port === 0) return undefined;
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(target.port, target.host, () => resolve());
    });
  } catch (error) {
    return describeListenError(error, target);
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return undefined;
}
