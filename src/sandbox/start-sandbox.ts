import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Logger, pino } from 'pino';
import { createSandboxApp } from './create-sandbox-app.js';
import { createSaleRecorder, type SaleInput, type SaleResult } from './record-sale.js';
import { createSandboxState } from './sandbox-state.js';
import { createWebhookSender } from './webhook-sender.js';

export type { SaleInput, SaleResult } from './record-sale.js';

export interface SandboxOptions {
  units: number;
  articles: number;
  seed: number;
  /** Simulated sales per minute; 0 turns them off. */
  salesPerMinute: number;
  /** Required on every call, and sent with every webhook. */
  apiKey: string;
  webhookUrl?: string | undefined;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Default: silent. */
  logger?: Logger;
  /** Keep each article once made (the standalone sandbox; see `SandboxCatalogOptions`). */
  keepArticles?: boolean;
  now?: () => Date;
}

export interface RunningSandbox {
  /** Base URL without trailing slash, e.g. http://127.0.0.1:4010; POS list paths are `${url}/ext/...`. */
  readonly url: string;
  setWebhookUrl(url: string | undefined): void;
  /** Records a sale now (unit code or localId; random when omitted) and sends its webhooks in the background. */
  makeSale(input?: SaleInput): Promise<SaleResult>;
  /** Closes the server (keep-alive and hung connections too), stops simulated sales, awaits webhook sends. */
  stop(): Promise<void>;
}

function checkOptions(options: SandboxOptions): void {
  const problems: string[] = [];
  if (!Number.isInteger(options.units) || options.units < 1 || options.units > 50) problems.push('units must be an integer 1-50');
  if (!Number.isInteger(options.articles) || options.articles < 1 || options.articles > 1_000_000) {
    problems.push('articles must be an integer 1-1000000');
  }
  if (!Number.isInteger(options.seed)) problems.push('seed must be an integer');
  if (!(options.salesPerMinute >= 0 && options.salesPerMinute <= 6_000)) problems.push('salesPerMinute must be 0-6000');
  if (options.apiKey === '') problems.push('apiKey must not be empty');
  if (problems.length > 0) throw new RangeError(`Invalid sandbox options: ${problems.join('; ')}`);
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** Starts the sandbox POS on a real HTTP server. */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  checkOptions(options);
  const logger = options.logger ?? pino({ enabled: false });
  const now = options.now ?? (() => new Date());
  const state = createSandboxState({
    units: options.units,
    articles: options.articles,
    seed: options.seed,
    now,
    ...(options.keepArticles === true ? { keepArticles: true } : {}),
  });
  const sales = createSaleRecorder(state);
  const webhooks = createWebhookSender({ apiKey: options.apiKey, url: options.webhookUrl, logger, now });
  const app = createSandboxApp(state, { apiKey: options.apiKey, logger, sales, webhooks });

  const server = createServer(app);
  const host = options.host ?? '127.0.0.1';
  server.listen(options.port ?? 0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const url = `http://${urlHost(host)}:${port}`;

  function makeSaleNow(input?: SaleInput): SaleResult {
    const sale = sales.record(input);
    webhooks.send(sale.events);
    return sale.result;
  }

  let timer: NodeJS.Timeout | undefined;
  if (options.salesPerMinute > 0) {
    timer = setInterval(() => {
      try {
        makeSaleNow();
      } catch (error) {
        logger.warn({ err: error }, 'sandbox simulated sale failed');
      }
    }, 60_000 / options.salesPerMinute);
    // Simulated sales alone never keep the process alive.
    timer.unref();
  }

  logger.info(
    { url, units: options.units, articles: options.articles, seed: options.seed, salesPerMinute: options.salesPerMinute },
    'sandbox POS listening',
  );

  let stopping: Promise<void> | undefined;
  return {
    url,
    setWebhookUrl(next) {
      webhooks.setUrl(next);
    },
    async makeSale(input) {
      return makeSaleNow(input);
    },
    stop() {
      stopping ??= (async () => {
        if (timer !== undefined) clearInterval(timer);
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // close() alone waits for keep-alive and hung requests; cut them so stop() returns promptly.
        server.closeAllConnections();
        await Promise.all([closed, webhooks.stop()]);
        logger.info({ url }, 'sandbox POS stopped');
      })();
      return stopping;
    },
  };
}
