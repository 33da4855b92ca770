import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, spawnBridge } from '../helpers/bridge-process.js';
import { waitFor } from '../helpers/wait-for.js';

const KEY = 'sandbox-key';
const dir = mkdtempSync(join(tmpdir(), 'webhook-crash-'));

afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** The bridge as `npm start` runs it, with its built-in sandbox and a SQLite store in `dir`, once it serves. */
async function startBridge(): Promise<{ child: ChildProcess; url: string; posUrl: string }> {
  const bridge = spawnBridge({
    STORE_URL: `sqlite://${join(dir, 'catalog.sqlite')}`,
    SANDBOX_ARTICLES: '60',
    SANDBOX_UNITS: '2',
    SANDBOX_SALES_PER_MINUTE: '0',
    POS_TIMEOUT_MS: '60000',
    POS_MAX_RETRIES: '0',
  });
  const { url, posUrl } = await bridge.listening();
  if (posUrl === undefined) throw new Error(`no sandbox: ${bridge.output()}`);
  // Ready once the first catalog is served.
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.status,
      () => 0,
    );
    if (ready === 200) return { child: bridge.child, url, posUrl };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the bridge did not get ready: ${bridge.output()}`);
}

async function soldMetric(url: string): Promise<string | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return /^catalog_bridge_webhook_sales_total\{outcome="(\w+)"\} 1$/m.exec(text)?.[1];
}

describe('a sale webhook across a crash of the process', () => {
  // Two bridge processes one after the other, each compiling from source and allowed 60 s to listen and
  // 60 s to be ready: the project's 60 s cut the test short on a busy machine.
  it('is processed after a restart when the process died after the 200, before processing it', { timeout: 300_000 }, async () => {
    const first = await startBridge();
    // The POS hangs on what processing needs, so the accepted event stays unprocessed.
    const fault = await fetch(`${first.posUrl}/sandbox/faults`, {
      method: 'PUT',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify([
        { endpoint: 'movement-list', mode: 'hang' },
        { endpoint: 'stock-export', mode: 'hang' },
      ]),
    });
    expect(fault.status).toBeLessThan(300);

    const accepted = await fetch(`${first.url}/webhooks/pos`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({
        timestamp: new Date().toISOString(),
        event: 'accounting.receipt.sale',
        data: { localId: 'receipt-before-crash', number: 'U1-P1-999999', state: 'open' },
      }),
    });
    expect(accepted.status).toBe(200);
    expect(await soldMetric(first.url)).toBeUndefined();
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));

    const second = await startBridge();
    const outcome = await waitFor(() => soldMetric(second.url)).catch(() => undefined);
    // Its movements do not exist (a made-up receipt), so the stock was re-read: processed.
    expect(outcome).toBe('refetched');
    second.child.kill('SIGTERM');
    await new Promise((resolve) => second.child.once('exit', resolve));
  });
});
