import { describe, expect, it } from 'vitest';
import {
  normalizePosBaseUrl,
  posSource,
  sameHostOtherKey,
  sameUnits,
  sandboxSource,
  sourceLabelOf,
} from '../../../../src/core/catalog/catalog-source.js';

describe('core/catalog/catalog-source', () => {
  it('names the sandbox by its seed and size, not its URL', () => {
    const source = sandboxSource({ seed: 42, units: 3, articles: 500 });

    expect(source).toEqual({
      id: 'sandbox:seed=42;units=3;articles=500',
      label: 'the built-in sandbox (seed 42, 3 units, 500 articles)',
    });
    expect(sandboxSource({ seed: 43, units: 3, articles: 500 }).id).not.toBe(source.id);
    expect(sandboxSource({ seed: 42, units: 3, articles: 501 }).id).not.toBe(source.id);
    expect(sandboxSource({ seed: 42, units: 2, articles: 500 }).id).not.toBe(source.id);
  });

  it('names a POS by its normalized base URL and the hash of its key, and shows it without the hash', () => {
    const source = posSource('HTTPS://pos.example/api/', 'a1b2c3');
    expect(source).toEqual({ id: 'pos:https://pos.example/api;key=a1b2c3', label: 'the POS at https://pos.example/api' });
    expect(sourceLabelOf(source)).toBe('the POS at https://pos.example/api');
    const storedEarlier = { id: source.id, label: 'the POS at https://pos.example/api (API key #a1b2c3)' };
    expect(sourceLabelOf(storedEarlier)).toBe('the POS at https://pos.example/api');
    expect(posSource('https://pos.example', 'x').id).not.toBe(posSource('https://pos.example', 'y').id);
  });

  it('tells the same POS host read with another key from every other pair of sources', () => {
    const a = posSource('https://pos.example/api', 'a1');
    const b = posSource('https://pos.example/api/', 'b2');

    expect(sameHostOtherKey(a, b)).toBe(true);
    expect(sameHostOtherKey(a, a)).toBe(false);
    expect(sameHostOtherKey(a, posSource('https://other.example/api', 'a1'))).toBe(false);
    expect(sameHostOtherKey(a, posSource('https://pos.example/v2', 'b2'))).toBe(false);
    const sandbox = sandboxSource({ seed: 1, units: 1, articles: 1 });
    expect(sameHostOtherKey(sandbox, sandboxSource({ seed: 2, units: 1, articles: 1 }))).toBe(false);
    expect(sameHostOtherKey(sandbox, a)).toBe(false);
  });

  it('normalizes case, default ports, trailing slashes, credentials, query and fragment away', () => {
    for (const url of [
      'https://pos.example/api',
      'HTTPS://POS.Example/api/',
      'https://pos.example:443/api//',
      'https://user:secret@pos.example/api?tenant=1#x',
    ]) {
      expect(normalizePosBaseUrl(url)).toBe('https://pos.example/api');
    }
    expect(normalizePosBaseUrl('http://127.0.0.1:4010')).toBe('http://127.0.0.1:4010');
    expect(normalizePosBaseUrl('http://pos.example:8080/')).toBe('http://pos.example:8080');
    expect(normalizePosBaseUrl('https://pos.example/API')).not.toBe(normalizePosBaseUrl('https://pos.example/api'));
    expect(() => normalizePosBaseUrl('not a url')).toThrow(TypeError);
  });

  it('matches units by localId and code, in any order', () => {
    const stored = [
      { localId: 'u-1', code: 'U1', name: 'Praha' },
      { localId: 'u-2', code: 'U2', name: 'Brno' },
    ];

    expect(
      sameUnits(stored, [
        { localId: 'u-2', code: 'U2' },
        { localId: 'u-1', code: 'U1' },
      ]),
    ).toBe(true);
    expect(sameUnits(stored, [{ localId: 'u-1', code: 'U1' }])).toBe(false);
    expect(
      sameUnits(stored, [
        { localId: 'u-1', code: 'U1' },
        { localId: 'u-3', code: 'U2' },
      ]),
    ).toBe(false);
    expect(
      sameUnits(stored, [
        { localId: 'u-1', code: 'U1' },
        { localId: 'u-2', code: 'U3' },
      ]),
    ).toBe(false);
    expect(
      sameUnits(stored, [
        { localId: 'u-1', code: 'U1' },
        { localId: 'u-1', code: 'U1' },
      ]),
    ).toBe(false);
    expect(sameUnits([], [])).toBe(false);
  });
});
