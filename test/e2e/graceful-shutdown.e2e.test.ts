import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { type IncomingMessage, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, spawnBridge } from '../helpers/bridge-process.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * A deploy never cuts a feed download (docs/failure-modes.md): on SIGTERM the bridge stops accepting,
 * aborts the sync it is running, lets every response in flight finish (SHUTDOWN_GRACE_MS), and exits 0.
 * The bridge runs as `npm start` runs it (from source), with its built-in sandbox.
 */

const ADMIN = 'admin-token-for-shutdown';
const dir = mkdtempSync(join(tmpdir(), 'shutdown-e2e-'));

afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

async function startBridge(): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const bridge = spawnBridge({
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    STORE_URL: `sqlite://${join(dir, 'catalog.sqlite')}`,
    SANDBOX_ARTICLES: '20000',
    SANDBOX_UNITS: '1',
    SANDBOX_SALES_PER_MINUTE: '0',
    ADMIN_TOKEN: ADMIN,
    SHUTDOWN_GRACE_MS: '60000',
  });
  const { url } = await bridge.listening(90_000);
  // Ready once google.xml has been rendered (the first render answers 503 while it runs).
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline && bridge.child.exitCode === null) {
    const status = await fetch(`${url}/feeds/all/google.xml`, { method: 'HEAD' }).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return { child: bridge.child, url, output: bridge.output };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the bridge did not render google.xml: ${bridge.output()}`);
}

interface Download {
  readonly response: IncomingMessage;
  /** Settles with the bytes received once the body has ended (or the connection was cut). */
  readonly body: Promise<{ readonly bytes: number; readonly complete: boolean }>;
}

/** Starts an uncompressed download and holds it after its first bytes: a slow client on a big feed. */
async function startDownload(url: string): Promise<Download> {
  const req = request(url, { headers: { 'accept-encoding': 'identity' } });
  req.end();
  const [response] = (await once(req, 'response')) as [IncomingMessage];
  const body = new Promise<{ bytes: number; complete: boolean }>((resolve) => {
    let bytes = 0;
    response.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    response.on('end', () => resolve({ bytes, complete: response.complete }));
    response.on('error', () => resolve({ bytes, complete: false }));
    response.on('aborted', () => resolve({ bytes, complete: false }));
  });
  await once(response, 'data');
  response.pause();
  return { response, body };
}

describe('graceful shutdown', () => {
  // Its own bounds allow 90 s for the start and 90 s for the first render of a 20,000-article google.xml
  // (a child process compiling from source): the project's 60 s cut it short on a busy machine.
  it('finishes every download in flight and the running sync ends, then exits 0 on SIGTERM', { timeout: 240_000 }, async () => {
    const { child, url, output } = await startBridge();
    const downloads = await Promise.all(Array.from({ length: 4 }, () => startDownload(`${url}/feeds/all/google.xml`)));
    const length = Number(downloads[0]?.response.headers['content-length']);
    expect(length).toBeGreaterThan(5_000_000);

    // A full sync is running when the signal comes.
    const sync = await fetch(`${url}/admin/sync`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(sync.status).toBeLessThan(300);
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    child.kill('SIGTERM');
    // The listener closes, while the downloads are still held (and keep the process running).
    await waitFor(
      () =>
        fetch(`${url}/healthz`).then(
          () => false,
          () => true,
        ),
      { message: 'the listener to refuse connections' },
    );
    expect(child.exitCode).toBeNull();

    for (const download of downloads) download.response.resume();
    for (const download of downloads) {
      const { bytes, complete } = await download.body;
      expect({ complete, bytes, length }, output()).toEqual({ complete: true, bytes: length, length });
      expect(bytes).toBe(length);
    }
    const [code] = await exited;
    expect(code, output()).toBe(0);
    expect(output()).toContain('shutting down');
    // The sync was aborted, not waited for.
    expect(output()).toMatch(/SYNC_ABORTED|"outcome":"(published|unchanged)"/);
  });
});
