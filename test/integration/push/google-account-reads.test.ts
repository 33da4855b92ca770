import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createGoogleAccountReads } from '../../../src/adapters/push/google-account-reads.js';
import { type GoogleServer, startGoogleServer } from '../../fakes/channels/google-server.js';

/** The data source and quota reads against the fake Merchant API (src/adapters/push/google-account-reads.ts). */

const ACCOUNT = '123';
const DATA_SOURCE = '456';
const EMAIL = 'push@bridge-test.iam.gserviceaccount.com';
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privateKey = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

function readsOf(server: GoogleServer, rootUrl = server.baseUrl) {
  return createGoogleAccountReads({
    rootUrl,
    account: ACCOUNT,
    dataSourceId: DATA_SOURCE,
    key: { client_email: EMAIL, private_key: privateKey },
    tokenUrl: server.tokenUrl,
    timeoutMs: 5_000,
  });
}

describe('Google account reads', () => {
  let server: GoogleServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const start = async () => {
    server = await startGoogleServer({
      account: ACCOUNT,
      dataSourceId: DATA_SOURCE,
      clientEmail: EMAIL,
      publicKey: keys.publicKey,
    });
    return server;
  };

  it('tells a primary from a supplemental API source; a file source, 404 and 403 are final problems naming it', async () => {
    const google = await start();
    const reads = readsOf(google);
    expect(await reads.dataSource()).toEqual({ kind: 'primary' });
    google.dataSourceKind = 'supplemental';
    expect(await reads.dataSource()).toEqual({ kind: 'supplemental' });
    for (const kind of ['file', 404, 403] as const) {
      google.dataSourceKind = kind;
      const read = await reads.dataSource();
      expect(read).toMatchObject({
        retry: false,
        problem: expect.stringContaining(`accounts/${ACCOUNT}/dataSources/${DATA_SOURCE}`) as unknown,
      });
    }
    const auth = google.requests.find((request) => request.url.startsWith('/datasources/v1/'))?.headers.authorization;
    expect(auth).toMatch(/^Bearer ya29\.fake-/);
  });

  it('a 503 or an unreachable API is tried again', async () => {
    const google = await start();
    const reads = readsOf(google);
    expect(await reads.dataSource()).toEqual({ kind: 'primary' });
    // The token is cached: the next request is the data source read itself.
    google.faults.failNext(1, { status: 503 });
    expect(await reads.dataSource()).toMatchObject({
      retry: true,
      problem: expect.stringContaining('HTTP 503') as unknown,
    });
    expect(await readsOf(google, 'http://127.0.0.1:1').dataSource()).toMatchObject({ retry: true });
  });

  it('reads the quota groups with their method paths', async () => {
    const google = await start();
    google.exhaustDailyQuota();
    const read = await readsOf(google).quotas();
    expect(read).toEqual({
      groups: [
        expect.objectContaining({
          usage: 100_000,
          dailyLimit: 100_000,
          minuteLimit: 6_000,
          methods: expect.arrayContaining(['products/v1/productInputs.insert']) as unknown,
        }),
        expect.objectContaining({ methods: expect.arrayContaining(['inventories/v1/localInventories.delete']) as unknown }),
      ],
    });
    expect(google.quotaReads()).toBe(1);
  });
});
