import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../../src/app/start-app.js';
import type { RecordedRequest } from '../../fakes/channels/http-harness.js';
import {
  eventually,
  type Fakes,
  holdCatalog,
  metaEntries,
  pushEnv,
  pushStatus,
  removeStores,
  settled,
  shoptetItems,
  startFakes,
  startPushApp,
  storeUrl,
} from '../../helpers/push-kit.js';

/**
 * Issue 13, "Done when": `429` and `5xx` with `Retry-After` are retried and paced (no request before the time
 * the channel named), Shoptet's `423` too (docs/decisions/0013-channel-push.md, "Backoff"). Times are the
 * fake's own clock: when it answered, when the next request arrived.
 */

/** An HTTP-date (IMF-fixdate, whole seconds) at least `ms` after now, as Shoptet sends it. */
function httpDateIn(ms: number): string {
  return new Date(Math.ceil((Date.now() + ms) / 1000) * 1000).toUTCString();
}

/** The earliest moment the channel allowed the request after `answer` (its Retry-After, seconds or a date). */
function allowedAfter(answer: RecordedRequest): number {
  const header = answer.retryAfter ?? '';
  if (/^\d+$/.test(header)) return (answer.answeredAt ?? 0) + Number(header) * 1000;
  return Date.parse(header);
}

/** Each answer with `Retry-After` is followed by a request no earlier than it allowed. */
function expectPaced(requests: readonly RecordedRequest[], statuses: readonly number[]): void {
  expect(requests.slice(0, statuses.length).map((request) => request.status)).toEqual(statuses);
  for (let index = 0; index + 1 < requests.length; index++) {
    const answer = requests[index];
    const next = requests[index + 1];
    if (answer?.retryAfter === undefined || next === undefined) continue;
    expect(next.receivedAt, `request ${index + 1} came before the Retry-After of ${index}`).toBeGreaterThanOrEqual(
      allowedAfter(answer),
    );
  }
}

describe('push retries: Retry-After honoured (Meta, Shoptet)', () => {
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

  it('429 and 503 with Retry-After (seconds; a date for Shoptet) and Shoptet 423: retried no earlier than told, then delivered', async () => {
    fakes = await startFakes();
    const { meta, shoptet } = fakes;
    // The start's reconciliation is the update under test: its first requests are refused.
    meta.faults.failNext(1, { status: 429, retryAfter: '2' });
    meta.faults.failNext(1, { status: 503, retryAfter: '1' });
    shoptet.faults.failNext(1, { status: 429, retryAfter: () => httpDateIn(2_000) });
    shoptet.faults.failNext(1, { status: 503, retryAfter: '1' });
    // Shoptet's lock: no Retry-After, the client waits the documented 5 s.
    shoptet.faults.failNext(1, { status: 423 });
    app = await startPushApp(pushEnv(fakes, storeUrl(), { SANDBOX_ARTICLES: '30' }));
    holdCatalog(app, fakes);

    const delivered = (requests: readonly RecordedRequest[]) => requests.some((request) => request.status === 200);
    expect(
      await eventually(
        () => delivered(meta.requests),
        (yes) => yes,
      ),
    ).toBe(true);
    expect(
      await eventually(
        () => delivered(shoptet.requests),
        (yes) => yes,
      ),
    ).toBe(true);
    await settled(app);

    expectPaced(meta.requests, [429, 503, 200]);
    expectPaced(shoptet.requests, [429, 503, 423, 200]);
    const lock = shoptet.requests[2];
    expect((shoptet.requests[3]?.receivedAt ?? 0) - (lock?.answeredAt ?? 0)).toBeGreaterThanOrEqual(5_000);
    // The refused rows stay together: one request per answer (one backoff draw per answer), none extra.
    expect(meta.requests).toHaveLength(3);
    expect(shoptet.requests).toHaveLength(4);
    // Every target of the refused request is delivered later: retried, not dropped.
    const delivered200 = (requests: readonly RecordedRequest[]) => requests.filter((request) => request.status === 200);
    const ids = (requests: readonly RecordedRequest[]) =>
      metaEntries(requests)
        .map((entry) => entry.data['id'])
        .sort();
    expect(ids(delivered200(meta.requests))).toEqual(ids(meta.requests.slice(0, 1)));
    const codes = (requests: readonly RecordedRequest[]) =>
      shoptetItems(requests)
        .map((item) => String(item['productCode']))
        .sort();
    expect(codes(delivered200(shoptet.requests))).toEqual(codes(shoptet.requests.slice(0, 1)));
    expect(codes(shoptet.requests.slice(0, 1)).length).toBeGreaterThan(0);
    // Retries never opened more connections than Shoptet allows a token.
    expect(shoptet.connectionViolations()).toBe(0);
    const status = await pushStatus(app);
    expect(status['meta']?.pending).toBe(0);
    expect(status['shoptet']?.pending).toBe(0);
  });
});
