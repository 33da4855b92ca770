import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../../../src/core/redact-secrets.js';

const REAL_KEY = 'a8F3kQ9zL2mX7pW4';

describe('createRedactor', () => {
  it('leaves other words alone with a one-character key', () => {
    const redact = createRedactor(['k']);

    expect(redact('network error ECONNRESET: socket hang up, keep-alive k8s')).toBe(
      'network error ECONNRESET: socket hang up, keep-alive k8s',
    );
    expect(redact('Kód k')).toBe('Kód k');
  });

  it('still redacts a one-character key where it stands as the value of a key field', () => {
    const redact = createRedactor(['k']);

    expect(redact('x-api-key: k')).toBe(`x-api-key: ${REDACTED}`);
    expect(redact('GET /export?apiKey=k&unit=1')).toBe(`GET /export?apiKey=${REDACTED}&unit=1`);
    expect(redact('{"apiKey":"k","network":"k"}')).toBe(`{"apiKey":"${REDACTED}","network":"k"}`);
  });

  it('does not mangle messages when the key is a common word', () => {
    const redact = createRedactor(['network']);

    expect(redact('network error: connect ECONNREFUSED 127.0.0.1:4010 (networks down)')).toBe(
      'network error: connect ECONNREFUSED 127.0.0.1:4010 (networks down)',
    );
    expect(redact('Invalid api key network')).toBe(`Invalid api key ${REDACTED}`);
    expect(redact('Authorization: Bearer network')).toBe(`Authorization: Bearer ${REDACTED}`);
  });

  it('treats words of any case and plain numbers as word-like', () => {
    for (const word of ['Password', 'CATALOGUE', 'password', '12345678']) {
      const redact = createRedactor([word]);
      expect(redact(`${word} was changed`)).toBe(`${word} was changed`);
      expect(redact(`token=${word}`)).toBe(`token=${REDACTED}`);
    }
  });

  it('redacts a real key wherever it appears as a whole value: URL, header echo, JSON, prose', () => {
    const redact = createRedactor([REAL_KEY]);

    expect(redact(`https://pos.example.test/api/ext/unit/list?key=${REAL_KEY}`)).toBe(
      `https://pos.example.test/api/ext/unit/list?key=${REDACTED}`,
    );
    expect(redact(`request headers: { "x-api-key": "${REAL_KEY}", accept: "application/json" }`)).toBe(
      `request headers: { "x-api-key": "${REDACTED}", accept: "application/json" }`,
    );
    expect(redact(`Key ${REAL_KEY} is not valid; ${REAL_KEY}.`)).toBe(`Key ${REDACTED} is not valid; ${REDACTED}.`);
    expect(redact(`https://${REAL_KEY}@pos.example.test/`)).toBe(`https://${REDACTED}@pos.example.test/`);
  });

  it('never replaces a part of a longer value', () => {
    const redact = createRedactor([REAL_KEY]);

    expect(redact(`x-api-key: ${REAL_KEY}extra`)).toBe(`x-api-key: ${REAL_KEY}extra`);
    expect(redact(`prefix_${REAL_KEY}`)).toBe(`prefix_${REAL_KEY}`);
  });

  it('replaces the longer of two overlapping secrets whole, and ignores empty ones', () => {
    const redact = createRedactor(['', undefined, 'abcd1234', 'abcd1234-next']);

    expect(redact('keys abcd1234-next and abcd1234')).toBe(`keys ${REDACTED} and ${REDACTED}`);
    expect(createRedactor([''])('anything')).toBe('anything');
  });

  it('never leaves a real key in the text, wherever it is put between separators', () => {
    const separators = fc.constantFrom(' ', '=', ':', '"', "'", '/', '?', '&', ',', '(', ')', '\n', '.', '@');
    const words = fc.stringMatching(/^[a-z]{0,8}$/);
    const redact = createRedactor([REAL_KEY]);
    fc.assert(
      fc.property(words, separators, separators, words, (before, left, right, after) => {
        expect(redact(`${before}${left}${REAL_KEY}${right}${after}`)).not.toContain(REAL_KEY);
      }),
    );
  });

  it('changes nothing but the secret: the text around it stays as it was', () => {
    const redact = createRedactor(['k']);
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zA-Z ,.]{0,40}$/), (text) => {
        const withoutField = text.replace(/key|token|secret|password|authorization/gi, 'word');
        expect(redact(withoutField)).toBe(withoutField);
      }),
    );
  });
});
