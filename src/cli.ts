#!/usr/bin/env node
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { config as loadDotenv } from 'dotenv';
import { createLogger } from './adapters/logger/create-logger.js';
import { type Config, ConfigError, loadConfig } from './config/load-config.js';

/**
 * The `catalog-bridge` command (package.json `bin`). Exit codes: 0 done, 1 the sync or backup failed or was
 * refused (the output folder or previous backup is left as it was), 2 bad usage, configuration or template.
 */

const USAGE = `Usage:
  catalog-bridge sync --once --out DIR   one full sync; every feed written to DIR (as under /feeds/ of the server)
  catalog-bridge backup --out FILE       a copy of the SQLite store while the bridge runs (SQLite's online backup,
                                         each file as it was at one moment): the catalog file to FILE, the
                                         webhook inbox and push outbox files beside it
  catalog-bridge restore --from FILE     puts such a backup in the store's place (the bridge stopped)
  catalog-bridge serve                   the server (what npm start runs)
  catalog-bridge --version               the version (CHANGELOG.md)
  catalog-bridge --help

Configuration comes from the environment and an optional .env file, as for the server (see README).
Exit codes: 0 done, 1 the sync or backup failed (DIR or the previous backup left as it was), 2 bad usage or
configuration.
`;

function fail(message: string, code: number): never {
  process.stderr.write(`catalog-bridge: ${message}\n`);
  process.exit(code);
}

function usageError(message: string): never {
  process.stderr.write(`catalog-bridge: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function readConfig(): Config {
  loadDotenv({ quiet: true });
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) fail(`invalid configuration\n${error.problems.map((p) => `  ${p}`).join('\n')}`, 2);
    throw error;
  }
}

async function runSync(args: string[]): Promise<void> {
  let values: { once?: boolean; out?: string };
  try {
    ({ values } = parseArgs({ args, options: { once: { type: 'boolean' }, out: { type: 'string' } }, strict: true }));
  } catch (error) {
    usageError(error instanceof Error ? error.message : String(error));
  }
  if (values.once !== true) usageError('sync needs --once (scheduled syncs are what `serve` runs)');
  if (values.out === undefined || values.out.trim() === '') usageError('sync --once needs --out DIR');
  const outDir = resolve(values.out);
  const config = readConfig();
  const logger = createLogger(config.logLevel, { to: 'stderr', format: config.logFormat });
  const [{ syncOnce }, { TemplateLoadError }] = await Promise.all([
    import('./cli/sync-once.js'),
    import('./core/feeds/load-templates.js'),
  ]);
  let result: Awaited<ReturnType<typeof syncOnce>>;
  try {
    result = await syncOnce(config, outDir, { logger });
  } catch (error) {
    if (error instanceof TemplateLoadError) fail(error.message, 2);
    throw error;
  }
  const { report, index } = result;
  if (!result.ok || index === undefined) {
    const why = report.error?.message ?? report.reason ?? report.outcome;
    fail(`sync ${report.outcome}: ${why}; ${outDir} left as it was`, 1);
  }
  for (const unit of index.skippedUnits ?? []) {
    process.stderr.write(
      `catalog-bridge: warning: the feeds of unit ${JSON.stringify(unit)} were not written: its code cannot be a folder name\n`,
    );
  }
  process.stdout.write(
    `catalog-bridge: ${report.outcome === 'published' ? 'synced' : 'catalog unchanged'}, version ${index.version}, ` +
      `${report.products ?? 0} products; ${index.files.length} feeds written to ${outDir} (index: feeds.json)\n`,
  );
}

async function runStoreCommand(command: 'backup' | 'restore', args: string[]): Promise<void> {
  const option = command === 'backup' ? 'out' : 'from';
  let values: { out?: string; from?: string };
  try {
    ({ values } = parseArgs({ args, options: { [option]: { type: 'string' } }, strict: true }));
  } catch (error) {
    usageError(error instanceof Error ? error.message : String(error));
  }
  const file = values[option];
  if (file === undefined || file.trim() === '') usageError(`${command} needs --${option} FILE`);
  const config = readConfig();
  const { backupStore, restoreStore } = await import('./cli/backup.js');
  const result = command === 'backup' ? await backupStore(config, file) : await restoreStore(config, file);
  if (!result.ok) fail(`${command} failed: ${result.message}`, result.usage === true ? 2 : 1);
  if (result.newStore !== undefined) {
    // Run from another folder or without the service's settings, STORE_URL points somewhere new: say where.
    process.stderr.write(
      `catalog-bridge: there was no store at ${result.newStore}: restored into a new one there (check STORE_URL is the service's)\n`,
    );
  }
  for (const copied of result.files) {
    const line =
      copied.bytes === undefined
        ? `${copied.part}: none in ${command === 'backup' ? 'this store' : 'the backup'} (${copied.from})`
        : `${copied.part}: ${copied.from} -> ${copied.to} (${copied.bytes} bytes)`;
    process.stdout.write(`catalog-bridge: ${line}\n`);
  }
}

/** `version` of package.json (one folder up from both src/ and dist/). */
async function packageVersion(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(new URL('../package.json', import.meta.url), 'utf8');
  const version = (JSON.parse(text) as { version?: unknown }).version;
  return typeof version === 'string' ? version : 'unknown';
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    if (command === undefined) process.exitCode = 2;
    return;
  }
  if (command === '--version' || command === 'version') {
    process.stdout.write(`${await packageVersion()}\n`);
    return;
  }
  if (command === 'sync') return runSync(rest);
  if (command === 'backup' || command === 'restore') return runStoreCommand(command, rest);
  if (command === 'serve') {
    if (rest.length > 0) usageError(`serve takes no arguments (got ${rest.join(' ')})`);
    await import('./main.js');
    return;
  }
  usageError(`unknown command "${command}"`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  fail(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, 1);
});
