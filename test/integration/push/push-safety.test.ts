import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../../src/app/start-app.js';
import {
  eventually,
  type Fakes,
  holdCatalog,
  META_TOKEN,
  pushEnv,
  pushStatus,
  removeStores,
  SHOPTET_TOKEN,
  sandboxCall,
  settled,
  startFakes,
  startPushApp,
  storeUrl,
} from '../../helpers/push-kit.js';

/**
 * Issue 13, "Safety": a failed stock export sends nothing (no item is pushed out of stock because a source
 * failed), and the channels' credentials never reach the log, even through errors.
 */

describe('push safety (Meta, Shoptet)', () => {
  let app: RunningApp | undefined;
  let fakes: Fakes | undefined;

  afterEach(async () => {
    await app?.stop();
    await fakes?.meta.close();
    await fakes?.shoptet.close();
    app = undefined;
    fakes = undefined;
  });
  afterAll(removeStores);

  it('a failed stock export (error, empty, truncated; or one unit only) sends nothing to either channel', async () => {
    fakes = await startFakes();
    app = await startPushApp(pushEnv(fakes, storeUrl(), { SANDBOX_ARTICLES: '30', POS_MAX_RETRIES: '0' }));
    await settled(app);
    const from = holdCatalog(app, fakes);
    const versions = new Set([app.catalog.current()?.version]);

    const whole = (mode: string) => [
      { endpoint: 'stock-export', mode },
      { endpoint: 'stock-export-all', mode },
    ];
    // Every export failing one way or another, and only one unit's export failing once (the others read fine).
    const faults = [...['error', 'empty', 'truncated'].map(whole), [{ endpoint: 'stock-export', mode: 'error', times: 1 }]];
    for (const rules of faults) {
      await sandboxCall(app, 'DELETE', '/sandbox/requests');
      await sandboxCall(app, 'PUT', '/sandbox/faults', rules);
      await app.jobs.runNow('sync-stock');
      await app.jobs.runNow('sync-catalog');
      versions.add(app.catalog.current()?.version);
      // The fault was met (the syncs read the export it breaks), so "nothing sent" is the bridge's doing.
      const log = (await sandboxCall(app, 'GET', '/sandbox/requests')) as { requests: { fault?: string }[] };
      expect(log.requests.some((request) => request.fault !== undefined)).toBe(true);
    }
    await sandboxCall(app, 'DELETE', '/sandbox/faults');
    await settled(app);

    expect(fakes.meta.requests.slice(from.meta)).toEqual([]);
    expect(fakes.shoptet.requests.slice(from.shoptet)).toEqual([]);
    // Nothing failed silently into a new served version either (the reason nothing was pushed).
    expect(versions.size).toBe(1);
    // Four rounds of both syncs against a failing POS: more than the project's 30 s on a loaded machine.
  }, 60_000);

  it('never logs the channels tokens, through a run where both channels refuse them (401)', async () => {
    fakes = await startFakes();
    const lines: Record<string, unknown>[] = [];
    // The fakes expect other tokens: every request is refused with 401, and the message is logged and kept.
    const env = pushEnv(fakes, storeUrl(), { SANDBOX_ARTICLES: '30', LOG_LEVEL: 'trace' });
    app = await startPushApp(
      { ...env, META_ACCESS_TOKEN: `${META_TOKEN}-wrong`, SHOPTET_API_TOKEN: `${SHOPTET_TOKEN}-wrong` },
      lines,
      'trace',
    );
    const running = app;
    const refused = async () => {
      const push = await pushStatus(running);
      return push['meta']?.lastError !== undefined && push['shoptet']?.lastError !== undefined;
    };
    expect(await eventually(refused, (yes) => yes)).toBe(true);
    expect(fakes.meta.requests.some((request) => request.status === 401)).toBe(true);
    expect(fakes.shoptet.requests.some((request) => request.status === 401)).toBe(true);

    const exposed = [
      JSON.stringify(lines),
      JSON.stringify(await pushStatus(app)),
      await (await fetch(`${app.url}/metrics`)).text(),
    ].join('\n');
    // Each refusal is logged (a warning naming the setting to check), so the log is tested with errors in it.
    const refusals = lines.filter((line) => line['msg'] === 'push: the channel did not take every update');
    expect(refusals.map((line) => line['channel'])).toEqual(expect.arrayContaining(['meta', 'shoptet']));
    expect(JSON.stringify(refusals)).toContain('check META_ACCESS_TOKEN');
    expect(JSON.stringify(refusals)).toContain('check SHOPTET_API_TOKEN');
    // The channels' refusals are kept (status, and the log where a line names them), without the token.
    expect(exposed).toContain('check META_ACCESS_TOKEN');
    expect(exposed).toContain('check SHOPTET_API_TOKEN');
    for (const token of [`${META_TOKEN}-wrong`, `${SHOPTET_TOKEN}-wrong`, META_TOKEN, SHOPTET_TOKEN]) {
      expect(exposed).not.toContain(token);
    }
  });
});
