import { createVerify, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GOOGLE_CONTENT_SCOPE, parseServiceAccountKey, signAssertion } from '../../../../src/adapters/push/google-token.js';

const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('parseServiceAccountKey', () => {
  it('keeps client_email, private_key and token_uri', () => {
    const key = parseServiceAccountKey(
      JSON.stringify({ client_email: 'a@b', private_key: PEM, token_uri: 'http://127.0.0.1/t', extra: 1 }),
    );
    expect(key).toEqual({ client_email: 'a@b', private_key: PEM, token_uri: 'http://127.0.0.1/t' });
  });

  it('refuses a file that is not a key without quoting it', () => {
    const broken = `{"private_key": "${PEM.slice(0, 80)}`;
    expect(() => parseServiceAccountKey(broken)).toThrow(/not JSON/);
    expect(() => parseServiceAccountKey(JSON.stringify({ private_key: PEM }))).toThrow(/lacks client_email/);
    try {
      parseServiceAccountKey(JSON.stringify({ private_key: PEM }));
    } catch (error) {
      expect(String(error)).not.toContain('PRIVATE KEY');
    }
  });
});

describe('signAssertion', () => {
  it('is an RS256 JWT for the token endpoint, one hour, content scope, verifiable with the public key', () => {
    const now = Date.UTC(2026, 10, 26, 10, 0, 0);
    const jwt = signAssertion({ client_email: 'a@b', private_key: PEM }, 'http://127.0.0.1:1/token', now);
    const [header = '', claims = '', signature = ''] = jwt.split('.');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT' });
    expect(JSON.parse(Buffer.from(claims, 'base64url').toString())).toEqual({
      iss: 'a@b',
      scope: GOOGLE_CONTENT_SCOPE,
      aud: 'http://127.0.0.1:1/token',
      iat: now / 1000,
      exp: now / 1000 + 3600,
    });
    const verified = createVerify('RSA-SHA256')
      .update(`${header}.${claims}`)
      .verify(pair.publicKey, Buffer.from(signature, 'base64url'));
    expect(verified).toBe(true);
  });
});
