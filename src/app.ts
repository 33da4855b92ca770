import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from './adapters/logger/create-logger.js';
import type { Config } from './config/load-config.js';
import { createHttpApp } from './http/create-http-app.js';
import { type RunningSandbox, startSandbox } from './sandbox/start-sandbox.js';

export interface AppDeps {
  readonly logger: Logger;
}

export interface RunningApp {
  /** Base URL of the bridge's HTTP server as reachable from this machine. */
  readonly url: string;
  /** Base URL of the POS the bridge reads: the configured one, or the in-process sandbox. */
  readonly posUrl: string;
  readonly sandbox: RunningSandbox | undefined;
  stop(): Promise<void>;
}

/**
 * Composition root: wires the sandbox (when no POS is configured) and the HTTP server.
 * Shutdown order: stop accepting HTTP, then the sandbox.
 */
export async function startApp(config: Config, deps: AppDeps): Promise<RunningApp> {
  const { logger } = deps;
  const sandbox =
    config.pos.baseUrl === undefined
      ? await startSandbox({
          units: config.sandbox.units,
          articles: config.sandbox.articles,
          seed: config.sandbox.seed,
          salesPerMinute: config.sandbox.salesPerMinute,
          apiKey: config.sandbox.apiKey,
          host: '127.0.0.1',
          port: 0,
          logger: logger.child({ component: 'sandbox' }),
        })
      : undefined;
  const posUrl = config.pos.baseUrl ?? sandbox?.url ?? '';

  const httpApp = createHttpApp({
    logger,
    health: { readiness: () => ({ ready: false, reason: 'no catalog version yet' }) },
  });
  const server = httpApp.listen(config.http.port, config.http.host);
  try {
    await once(server, 'listening');
  } catch (error) {
    await sandbox?.stop();
    throw error;
  }
  const url = localUrlOf(server, config.http.host);
  sandbox?.setWebhookUrl(config.sandbox.webhookUrl ?? `${url}/webhooks/pos`);

  let stopping: Promise<void> | undefined;
  return {
    url,
    posUrl,
    sandbox,
    stop() {
      stopping ??= (async () => {
        await closeServer(server);
        await sandbox?.stop();
      })();
      return stopping;
    },
  };
}

function localUrlOf(server: Server, host: string): string {
  const { port } = server.address() as AddressInfo;
  const reachableHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${reachableHost}:${port}`;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Pollers keep connections alive; without this close() waits for them to time out.
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  });
}
