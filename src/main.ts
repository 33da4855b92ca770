import { config as loadDotenv } from 'dotenv';
import { createLogger } from './adapters/logger/create-logger.js';
import { ConfigError, loadConfig } from './config/load-config.js';
import { describeListenError, probeListen } from './http/listen-error.js';
import { limitHeapGrowth } from './workers/heap-growth.js';

/** Process entry: the only place that reads process.env and handles signals. */
async function main(): Promise<void> {
  limitHeapGrowth();
  loadDotenv({ quiet: true });
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`catalog-bridge: invalid configuration\n${error.problems.map((p) => `  ${p}`).join('\n')}\n`);
      process.exit(2);
    }
    throw error;
  }
  // A port in use is said at once, in one line, before the start loads the store and syncs (it listens last).
  const listenProblem = await probeListen(config.http);
  if (listenProblem !== undefined) {
    process.stderr.write(`catalog-bridge: ${listenProblem}\n`);
    process.exit(1);
  }
  const logger = createLogger(config.logLevel, { format: config.logFormat });
  // Imported only once the configuration is valid, so a bad setting fails fast without loading the app.
  const [{ startApp }, { TemplateLoadError }] = await Promise.all([
    import('./app/start-app.js'),
    import('./core/feeds/load-templates.js'),
  ]);
  let app: Awaited<ReturnType<typeof startApp>>;
  try {
    app = await startApp(config, { logger });
  } catch (error) {
    if (error instanceof TemplateLoadError) {
      process.stderr.write(`catalog-bridge: ${error.message}\n`);
      process.exit(2);
    }
    const lateListenProblem = describeListenError(error, config.http);
    if (lateListenProblem !== undefined) {
      process.stderr.write(`catalog-bridge: ${lateListenProblem}\n`);
      process.exit(1);
    }
    throw error;
  }
  const base = config.http.publicBaseUrl ?? app.url;
  const token = config.feed.token === undefined ? '' : '?token=…';
  const lines = [
    `catalog-bridge is listening on ${base}`,
    app.sandbox
      ? `  POS: ${app.posDescription}; its x-api-key: ${config.sandbox.apiKey}; set POS_BASE_URL to use a real POS`
      : `  POS: ${app.posDescription}`,
    `  status page: ${base}/${token}   feed list: ${base}/feeds${token}`,
    ...app.feeds.feeds
      .filter((feed) => feed.servesView('all'))
      .map(
        (feed) =>
          `  ${feed.title.padEnd(28)} ${base}${feed.file === 'local-inventory.tsv' ? '/feeds' : '/feeds/all'}/${feed.file}${token}`,
      ),
    `  per unit: ${base}/feeds/{unit}/{feed}; health: ${base}/healthz, readiness: ${base}/readyz`,
    groupLine(app.group?.()),
    app.catalog.current() === undefined
      ? app.group?.().role === 'follower'
        ? "  feeds answer 503 until the leader's first catalog is loaded"
        : '  the first sync is running; feeds answer 503 until it has finished'
      : '',
  ].filter((line) => line !== '');
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  async function shutdown(signal: NodeJS.Signals): Promise<void> {
    if (stopping) {
      // A second signal: the operator does not want to wait for the downloads in flight.
      logger.warn({ signal }, 'second signal: cutting the connections still open, exiting within 3 s');
      app.cutConnections();
      // Accepted webhooks are stored already; whatever else still runs is given a moment, not more.
      setTimeout(() => process.exit(1), 3_000).unref();
      return;
    }
    stopping = true;
    logger.info(
      { signal, graceMs: config.http.shutdownGraceMs },
      'shutting down: not ready any more, finishing the requests in flight',
    );
    try {
      await app.stop();
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  }
  process.on('SIGINT', (signal) => void shutdown(signal));
  process.on('SIGTERM', (signal) => void shutdown(signal));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `catalog-bridge: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});

/** In a group on Redis: this instance's name and role (docs/scale-out.md). */
function groupLine(group: { readonly instance: string; readonly role: string } | undefined): string {
  if (group === undefined) return '';
  return `  group on Redis: instance ${group.instance}, ${group.role === 'leader' ? 'leader (runs the syncs)' : 'follower'}`;
}
