import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/load-config.js';
import { createTestConfig } from '../../helpers/test-config.js';

const dir = mkdtempSync(join(tmpdir(), 'google-config-'));
const pem = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function problems(env: Record<string, string>): readonly string[] {
  try {
    createTestConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Google push configuration', () => {
  const good = file('good.json', { type: 'service_account', client_email: 'a@b.iam.gserviceaccount.com', private_key: pem });

  it('is off without the account; the account enables it with its defaults', () => {
    expect(createTestConfig({}).push.google).toBeUndefined();
    const config = createTestConfig({
      GOOGLE_MERCHANT_ACCOUNT_ID: '123',
      GOOGLE_MERCHANT_DATA_SOURCE_ID: '456',
      GOOGLE_APPLICATION_CREDENTIALS: good,
      UNIT_STORE_CODES: 'U1=praha',
    });
    expect(config.push.google).toMatchObject({
      account: '123',
      dataSourceId: '456',
      contentLanguage: 'cs',
      feedLabel: 'CZ',
      localInventory: true,
      tokenUrl: 'https://oauth2.googleapis.com/token',
      apiUrl: 'https://merchantapi.googleapis.com',
      quotaRefreshMs: 600_000,
    });
    expect(JSON.stringify(config)).not.toContain('PRIVATE KEY');
  });

  it('one line per missing setting, and the account when only its settings are given', () => {
    expect(problems({ GOOGLE_MERCHANT_ACCOUNT_ID: '123' })).toEqual([
      expect.stringMatching(/^GOOGLE_MERCHANT_DATA_SOURCE_ID: is required when GOOGLE_MERCHANT_ACCOUNT_ID is set/),
      expect.stringMatching(/^GOOGLE_APPLICATION_CREDENTIALS: is required when GOOGLE_MERCHANT_ACCOUNT_ID is set/),
    ]);
    expect(problems({ GOOGLE_MERCHANT_DATA_SOURCE_ID: '456' })).toEqual([
      expect.stringMatching(/^GOOGLE_MERCHANT_ACCOUNT_ID: is required when GOOGLE_MERCHANT_DATA_SOURCE_ID is set/),
    ]);
    // Google's own tools read GOOGLE_APPLICATION_CREDENTIALS: alone it enables nothing and is no error.
    expect(problems({ GOOGLE_APPLICATION_CREDENTIALS: '/nowhere.json' })).toEqual([]);
    expect(problems({ GOOGLE_MERCHANT_ACOUNT_ID: '1' })[0]).toMatch(/did you mean GOOGLE_MERCHANT_ACCOUNT_ID/);
  });

  it('GOOGLE_LOCAL_INVENTORY=true without UNIT_STORE_CODES stops the start with one line', () => {
    const base = {
      GOOGLE_MERCHANT_ACCOUNT_ID: '123',
      GOOGLE_MERCHANT_DATA_SOURCE_ID: '456',
      GOOGLE_APPLICATION_CREDENTIALS: good,
    };
    expect(problems({ ...base, GOOGLE_LOCAL_INVENTORY: 'true' })).toEqual([
      expect.stringMatching(/^UNIT_STORE_CODES: is required when GOOGLE_LOCAL_INVENTORY=true is set/),
    ]);
    expect(problems({ ...base, GOOGLE_LOCAL_INVENTORY: '1' })).toHaveLength(1);
    // Left to its default (or off), no store codes just means no local inventory.
    expect(problems(base)).toEqual([]);
    expect(problems({ ...base, GOOGLE_LOCAL_INVENTORY: 'false' })).toEqual([]);
    expect(problems({ ...base, GOOGLE_LOCAL_INVENTORY: 'true', UNIT_STORE_CODES: 'U1=praha' })).toEqual([]);
  });

  it('PUSH_GOOGLE_RECONCILE_SHARE: 0.5 by default, a number from 0 to 1', () => {
    expect(createTestConfig({}).push.googleReconcileShare).toBe(0.5);
    expect(createTestConfig({ PUSH_GOOGLE_RECONCILE_SHARE: '0.2' }).push.googleReconcileShare).toBe(0.2);
    expect(problems({ PUSH_GOOGLE_RECONCILE_SHARE: '1.5' })[0]).toMatch(/^PUSH_GOOGLE_RECONCILE_SHARE: /);
    expect(problems({ PUSH_GOOGLE_RECONCILE_SHARE: 'half' })[0]).toMatch(/^PUSH_GOOGLE_RECONCILE_SHARE: /);
  });

  it('names the key file problem without quoting the file', () => {
    const base = { GOOGLE_MERCHANT_ACCOUNT_ID: '123', GOOGLE_MERCHANT_DATA_SOURCE_ID: '456' };
    const check = (path: string) => problems({ ...base, GOOGLE_APPLICATION_CREDENTIALS: path });
    expect(check(join(dir, 'missing.json'))[0]).toMatch(/^GOOGLE_APPLICATION_CREDENTIALS: cannot read the key file .*ENOENT/);
    expect(check(file('text.json', 'not json'))[0]).toMatch(/is not JSON/);
    expect(check(file('user.json', { type: 'authorized_user', client_email: 'x', private_key: pem }))[0]).toMatch(
      /not a service account key/,
    );
    expect(check(file('nokey.json', { type: 'service_account', client_email: 'x' }))[0]).toMatch(/has no private_key/);
    const bad = check(file('badkey.json', { type: 'service_account', client_email: 'x', private_key: 'secret-not-pem' }));
    expect(bad[0]).toMatch(/not a PEM private key/);
    expect(bad.join('\n')).not.toContain('secret-not-pem');
    expect(problems({ ...base, GOOGLE_APPLICATION_CREDENTIALS: good, GOOGLE_MERCHANT_ACCOUNT_ID: 'abc' })[0]).toMatch(
      /GOOGLE_MERCHANT_ACCOUNT_ID: must be digits only/,
    );
  });
});
