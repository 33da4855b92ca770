import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/start-sandbox.js';
import { entryArgs } from '../helpers/entry-args.js';
import { createTestConfig } from '../helpers/test-config.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Backups that restore (docs/going-live.md, Backups): `catalog-bridge backup --out FILE` copies a running
 * bridge's SQLite files with SQLite's online backup while the bridge keeps writing (sales arrive during the
 * copy); `restore --from FILE` puts it back (refused while the bridge runs), and the bridge, with the POS
 * gone, serves the backed-up catalog version at once.
 */

const KEY = 'pos-key-of-the-shop';
const SCHEDULE_NEVER = '0 0 1 1 *';

interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The command as an operator runs it beside the server: its own process, the server's environment. */
function cli(args: readonly string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entryArgs('cli'), ...args], {
      env: { PATH: process.env['PATH'] ?? '', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function servedVersion(url: string): Promise<{ status: number; version: string | undefined; etag: string | undefined }> {
  const response = await request(`${url}/feeds/all/products.json`);
  const body = (await response.body.json()) as { version?: string };
  const etag = response.headers['etag'];
  return { status: response.statusCode, version: body.version, etag: typeof etag === 'string' ? etag : undefined };
}

describe('backup of a running bridge, restored with the POS unreachable', () => {
  let dir: string;
  let pos: RunningSandbox;
  let original: RunningApp | undefined;
  let restored: RunningApp | undefined;

  function bridgeEnv(store: string, posUrl: string): Record<string, string> {
    return {
      STORE_URL: `sqlite://${store}`,
      POS_BASE_URL: posUrl,
      POS_API_KEY: KEY,
      CATALOG_SYNC_CRON: SCHEDULE_NEVER,
      STOCK_SYNC_CRON: SCHEDULE_NEVER,
    };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'catalog-bridge-backup-'));
    pos = await startSandbox({ units: 2, articles: 60, seed: 11, salesPerMinute: 0, apiKey: KEY });
    original = await startApp(createTestConfig(bridgeEnv(join(dir, 'live', 'catalog.sqlite'), pos.url)), {
      logger: pino({ level: 'silent' }),
    });
    await original.initialSync;
  });

  afterAll(async () => {
    await restored?.stop();
    await original?.stop();
    await pos?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies the catalog and the webhook inbox while sales arrive; restored, the bridge serves the backed-up version with the POS gone', {
    timeout: 120_000,
  }, async () => {
    const running = original as RunningApp;
    const before = await servedVersion(running.url);
    expect(before.status).toBe(200);
    const store = join(dir, 'live', 'catalog.sqlite');
    const out = join(dir, 'backups', 'nightly.sqlite');

    // Sales keep the store and the inbox written to during a first copy (each sale is accepted into the
    // inbox before its 200, then applied to the catalog).
    pos.setWebhookUrl(`${running.url}/webhooks/pos`);
    const SALES = 8;
    const selling = (async () => {
      for (let sale = 0; sale < SALES; sale++) await pos.makeSale({ unitCode: sale % 2 === 0 ? 'U1' : 'U2' });
    })();
    const during = await cli(['backup', '--out', out], bridgeEnv(store, pos.url));
    await selling;
    expect(during.stderr).toBe('');
    expect(during.code).toBe(0);

    // Every sale applied and stored: a second backup over the first is this version exactly.
    await waitFor(
      () => {
        const { pending, sales } = running.webhooks.stats();
        return pending === 0 && sales.applied + sales.refetched + sales.dropped >= SALES;
      },
      { message: 'every sale applied' },
    );
    await running.catalog.flush();
    expect((await servedVersion(running.url)).version).not.toBe(before.version);
    const run = await cli(['backup', '--out', out], bridgeEnv(store, pos.url));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/catalog: .*nightly\.sqlite \(\d+ bytes\)/);
    expect(run.stdout).toMatch(/inbox: .*nightly\.inbox\.sqlite/);
    expect(existsSync(join(dir, 'backups', 'nightly.inbox.sqlite'))).toBe(true);
    // Nothing half-written is left beside the backup.
    expect(readdirSync(join(dir, 'backups')).filter((name) => name.includes('partial'))).toEqual([]);
    expect(statSync(out).size).toBeGreaterThan(0);

    const backedUp = await servedVersion(running.url);
    // Refused while the bridge runs: it would write over the restored files.
    const busy = await cli(['restore', '--from', out], bridgeEnv(store, pos.url));
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/the bridge is running.*stop it first/);

    // The live store moves on after the backup; the restore takes it back.
    await pos.makeSale({ unitCode: 'U1' });
    await waitFor(async () => (await servedVersion(running.url)).version !== backedUp.version, { message: 'a newer version' });
    await running.stop();
    original = undefined;
    const posUrl = pos.url;
    await pos.stop();

    const restore = await cli(['restore', '--from', out], bridgeEnv(store, posUrl));
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);
    // Into a place that held no store (another folder, or settings not the service's): done, and said.
    const fresh = await cli(['restore', '--from', out], { STORE_URL: `sqlite://${join(dir, 'fresh', 'catalog.sqlite')}` });
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).toMatch(/there was no store at .*fresh.*check STORE_URL/);
    expect(restore.stdout).toMatch(/catalog: .*nightly\.sqlite -> .*live\/catalog\.sqlite/);
    expect(existsSync(`${store}-wal`)).toBe(false);

    restored = await startApp(createTestConfig(bridgeEnv(store, posUrl)), { logger: pino({ level: 'silent' }) });
    const after = await servedVersion(restored.url);
    expect(after.status).toBe(200);
    expect(after.version).toBe(backedUp.version);
    expect(after.etag).toBe(backedUp.etag);
    await restored.initialSync;
    // The POS is gone: the start sync fails and the restored catalog stays served.
    expect((await servedVersion(restored.url)).version).toBe(backedUp.version);
  });

  it('leaves the previous set whole when one file of the store cannot be copied', async () => {
    const broken = join(dir, 'broken');
    mkdirSync(broken, { recursive: true });
    copyFileSync(join(dir, 'backups', 'nightly.sqlite'), join(broken, 'catalog.sqlite'));
    writeFileSync(join(broken, 'catalog.inbox.sqlite'), 'not a database, a disk error');
    const out = join(dir, 'backups', 'nightly.sqlite');
    const before = readFileSync(out);
    const inboxBefore = readFileSync(join(dir, 'backups', 'nightly.inbox.sqlite'));
    // Left by a run that was killed (no such process now): swept by the next run.
    writeFileSync(`${out}.partial-2147483646`, 'a killed run');

    const run = await cli(['backup', '--out', out], { STORE_URL: `sqlite://${join(broken, 'catalog.sqlite')}` });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/inbox .*the previous backup is left as it was/);
    expect(readFileSync(out).equals(before)).toBe(true);
    expect(readFileSync(join(dir, 'backups', 'nightly.inbox.sqlite')).equals(inboxBefore)).toBe(true);
    expect(readdirSync(join(dir, 'backups')).filter((name) => name.includes('partial'))).toEqual([]);
  });

  it('refuses a Redis or memory store with a clear word, and an --out that is the store itself; prints its version', async () => {
    const redis = await cli(['backup', '--out', join(dir, 'x.sqlite')], { STORE_URL: 'redis://127.0.0.1:1' });
    expect(redis.code).toBe(2);
    expect(redis.stderr).toMatch(/Redis.*AOF or RDB/);
    const memory = await cli(['backup', '--out', join(dir, 'x.sqlite')], { STORE_URL: 'memory://' });
    expect(memory.code).toBe(2);
    const store = join(dir, 'self.sqlite');
    const self = await cli(['backup', '--out', store], { STORE_URL: `sqlite://${store}` });
    expect(self.code).toBe(1);
    expect(self.stderr).toMatch(/would overwrite the store itself/);
    const folder = await cli(['backup', '--out', dir], { STORE_URL: `sqlite://${store}` });
    expect(folder.code).toBe(1);
    expect(folder.stderr).toMatch(/is a folder: name the backup's file/);
    const fromFolder = await cli(['restore', '--from', dir], { STORE_URL: `sqlite://${store}` });
    expect(fromFolder.code).toBe(1);
    expect(fromFolder.stderr).toMatch(/--from .* is a folder: name the backup's file/);
    const version = await cli(['--version'], {});
    expect(version.stdout.trim()).toBe(
      (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version,
    );
    const usage = await cli(['backup'], { STORE_URL: 'memory://' });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/backup needs --out FILE/);
    const nothing = await cli(['restore', '--from', join(dir, 'none.sqlite')], { STORE_URL: `sqlite://${store}` });
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toMatch(/no backup at/);
  });
});
