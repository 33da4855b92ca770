import { config as loadDotenv } from 'dotenv';
import { createLogger } from '../adapters/logger/create-logger.js';
import { type Config, ConfigError, loadConfig } from '../config/load-config.js';
import { describeListenError } from '../http/listen-error.js';
import { startSandbox } from './start-sandbox.js';

/**
 * `npm run sandbox`: the sandbox POS alone, for integrators. Reads HOST, SANDBOX_PORT, SANDBOX_* and
 * LOG_LEVEL (plus an optional .env), prints its URL and key, and stops cleanly on SIGINT/SIGTERM.
 */
async function main(): Promise<void> {
  loadDotenv({ quiet: true });
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel, { name: 'sandbox', format: config.logFormat });
  const sandbox = await startSandbox({
    units: config.sandbox.units,
    articles: config.sandbox.articles,
    seed: config.sandbox.seed,
    salesPerMinute: config.sandbox.salesPerMinute,
    apiKey: config.sandbox.apiKey,
    webhookUrl: config.sandbox.webhookUrl,
    host: config.http.host,
    port: config.sandbox.port,
    logger,
    // A process of its own: the memory is the sandbox's, the CPU it saves is shared with the bridge's.
    keepArticles: true,
  }).catch((error: unknown): never => {
    const where = { host: config.http.host, port: config.sandbox.port, portVariable: 'SANDBOX_PORT' };
    const problem = describeListenError(error, where);
    if (problem === undefined) throw error;
    process.stderr.write(`Sandbox POS: ${problem}\n`);
    process.exit(1);
  });
  process.stdout.write(
    `Sandbox POS listening on ${sandbox.url}\n` +
      `API key (x-api-key): ${config.sandbox.apiKey}\n` +
      `Webhooks to: ${config.sandbox.webhookUrl ?? '(none; set SANDBOX_WEBHOOK_URL)'}\n` +
      `Try: curl -s -X POST -H 'x-api-key: ${config.sandbox.apiKey}' -H 'content-type: application/json' ` +
      `-d '{"limit":2}' ${sandbox.url}/ext/assortment/article/list\n`,
  );

  let shuttingDown = false;
  async function shutdown(signal: string): Promise<void> {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'sandbox POS shutting down');
    await sandbox.stop();
    process.exit(0);
  }
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Sandbox POS failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
