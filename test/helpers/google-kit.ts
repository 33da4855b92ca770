import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../src/config/load-config.js';
import { type GoogleServer, startGoogleServer } from '../fakes/channels/google-server.js';
import { createTestConfig } from './test-config.js';

/**
 * A bridge configured for the fake Merchant API (test/fakes/channels/google-server.ts): a throwaway RSA key
 * written as the service-account file, the sandbox's three units with store codes, syncs only when asked.
 * `cleanUp` removes the files it wrote.
 */

export const GOOGLE_ACCOUNT = '123';
export const GOOGLE_DATA_SOURCE = '456';
const CLIENT_EMAIL = 'bridge@project.iam.gserviceaccount.com';
const STORE_CODES = 'U1=praha-1,U2=brno,U3=ostrava';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privatePem = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

export function createGoogleKit() {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'google-e2e-'));
    dirs.push(dir);
    return dir;
  };
  const keyFile = (tokenUrl: string) => {
    const file = join(tempDir(), 'service-account.json');
    const key = { type: 'service_account', client_email: CLIENT_EMAIL, private_key: privatePem, token_uri: tokenUrl };
    writeFileSync(file, JSON.stringify(key));
    return file;
  };
  return {
    publicKey: keys.publicKey,
    startFake: () =>
      startGoogleServer({
        account: GOOGLE_ACCOUNT,
        dataSourceId: GOOGLE_DATA_SOURCE,
        clientEmail: CLIENT_EMAIL,
        publicKey: keys.publicKey,
      }),
    config(google: GoogleServer, extra: Record<string, string> = {}): Config {
      return createTestConfig({
        STORE_URL: `sqlite://${join(tempDir(), 'catalog.sqlite')}`,
        SANDBOX_ARTICLES: '40',
        SANDBOX_SALES_PER_MINUTE: '0',
        STOCK_SYNC_CRON: '0 0 1 1 *',
        CATALOG_SYNC_CRON: '0 0 1 1 *',
        UNIT_STORE_CODES: STORE_CODES,
        GOOGLE_MERCHANT_ACCOUNT_ID: GOOGLE_ACCOUNT,
        GOOGLE_MERCHANT_DATA_SOURCE_ID: GOOGLE_DATA_SOURCE,
        GOOGLE_APPLICATION_CREDENTIALS: keyFile(google.tokenUrl),
        GOOGLE_OAUTH_TOKEN_URL: google.tokenUrl,
        GOOGLE_MERCHANT_API_URL: google.baseUrl,
        ...extra,
      });
    },
    cleanUp() {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
