import { describe, expect, it } from 'vitest';
import { isInternalHost, redirectProblem } from '../../../src/adapters/enrichment/redirect-policy.js';

describe('adapters/enrichment/redirect-policy', () => {
  it('knows this machine and private networks by their names and address literals', () => {
    for (const host of ['localhost', 'a.localhost', '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1']) {
      expect(isInternalHost(host), host).toBe(true);
    }
    for (const host of ['169.254.169.254', '0.0.0.0', '[::1]', '[fd00::1]', '[fe80::1]', '[::ffff:127.0.0.1]', 'localhost.']) {
      expect(isInternalHost(host), host).toBe(true);
    }
    for (const host of ['docs.google.com', '8.8.8.8', '172.32.0.1', '11.0.0.1', '[2001:db8::1]', 'localhost.example']) {
      expect(isInternalHost(host), host).toBe(false);
    }
  });

  it('sees through IPv4 addresses written as IPv6, as the URL parser writes them', () => {
    for (const host of ['[::ffff:127.0.0.1]', '[::ffff:169.254.169.254]', '[::7f00:1]', '[::ffff:10.0.0.1]']) {
      const { hostname } = new URL(`https://${host}/x`);
      expect(isInternalHost(hostname), `${host} → ${hostname}`).toBe(true);
    }
    expect(isInternalHost(new URL('https://[::ffff:8.8.8.8]/').hostname)).toBe(false);
  });

  it('follows https to https anywhere, and internal addresses only from a sheet that is internal itself', () => {
    const google = new URL('https://docs.google.com/spreadsheets/d/e/x/pub?output=csv');
    expect(redirectProblem(google, new URL('https://doc-0s.googleusercontent.com/pub'), google)).toBeUndefined();
    expect(redirectProblem(google, new URL('http://doc-0s.googleusercontent.com/pub'), google)).toBe(
      'from https to http (doc-0s.googleusercontent.com)',
    );
    expect(redirectProblem(google, new URL('https://10.0.0.5/x'), google)).toBe('to an internal address (10.0.0.5)');
    expect(redirectProblem(google, new URL('file:///etc/passwd'), google)).toBe('to a file: address');
    const lan = new URL('http://192.168.1.10/sheet.csv');
    expect(redirectProblem(lan, new URL('http://192.168.1.11/sheet.csv'), lan)).toBeUndefined();
  });
});
