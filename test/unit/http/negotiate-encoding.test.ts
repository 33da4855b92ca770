import { describe, expect, it } from 'vitest';
import { negotiateEncoding } from '../../../src/http/send-feed.js';

describe('http/send-feed negotiateEncoding', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['deflate', 'identity'],
    ['*', 'br'],
    ['gzip;q=0, br;q=0', 'identity'],
    ['identity;q=0', undefined],
    ['*;q=0', undefined],
    ['*;q=0, gzip', 'gzip'],
    ['GZIP;Q=1', 'gzip'],
    ['br;q=abc, gzip;q=0.1', 'gzip'],
  ])('Accept-Encoding %j → %s', (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected);
  });

  it.each([
    [undefined, 'identity'],
    ['gzip, deflate, br', 'identity'],
    ['*', 'identity'],
    ['br;q=1, identity;q=0.1', 'identity'],
    ['gzip, identity;q=0', undefined],
    ['*;q=0', undefined],
  ])('a body compressed already (identity only): Accept-Encoding %j → %s', (header, expected) => {
    expect(negotiateEncoding(header, ['identity'])).toBe(expected);
  });
});
