import { describe, expect, it } from 'vitest';
import { formatNumber, plural, roughDuration, textsFor } from '../../../../src/core/text/local-text.js';

/**
 * The console's plural and number text had three copies (the pages, the warnings' sentences, the fetch log's
 * notes); these pin that the shared one says what each copy said, for every count they are given.
 */

/** The warnings' former Czech rule: 1 / integers 2–4 / everything else. */
function formerCsPlural(count: number, one: string, few: string, other: string): string {
  const form = count === 1 ? one : count >= 2 && count <= 4 && Number.isInteger(count) ? few : other;
  return form.replace('#', new Intl.NumberFormat('cs-CZ').format(count));
}

function formerEnPlural(count: number, one: string, other: string): string {
  return (count === 1 ? one : other).replace('#', new Intl.NumberFormat('en-GB').format(count));
}

const COUNTS = [0, 1, 2, 3, 4, 5, 11, 12, 21, 22, 25, 101, 102, 1_000, 12_345, 1_234_567, 0.5, 1.5, 2.5, 4.25];

describe('plural', () => {
  it('says in Czech what the warnings said, for counts of items and rows', () => {
    for (const count of COUNTS) {
      expect(plural('cs', count, { one: '# řádek', few: '# řádky', other: '# řádků' })).toBe(
        formerCsPlural(count, '# řádek', '# řádky', '# řádků'),
      );
    }
  });

  it('says in English what the warnings said', () => {
    for (const count of COUNTS) {
      expect(plural('en', count, { one: '# row', other: '# rows' })).toBe(formerEnPlural(count, '# row', '# rows'));
    }
  });

  it('formats the count as the default number format does', () => {
    for (const count of COUNTS) {
      expect(formatNumber('cs', count)).toBe(new Intl.NumberFormat('cs-CZ').format(count));
      expect(formatNumber('en', count)).toBe(new Intl.NumberFormat('en-GB').format(count));
    }
  });
});

describe('roughDuration', () => {
  it('says days with each language’s plural', () => {
    expect(roughDuration(2 * 86_400, 'cs')).toBe('2 dny');
    expect(roughDuration(4 * 86_400, 'cs')).toBe('4 dny');
    expect(roughDuration(5 * 86_400, 'cs')).toBe('5 dní');
    expect(roughDuration(22 * 86_400, 'cs')).toBe('22 dní');
    expect(roughDuration(2 * 86_400, 'en')).toBe('2 days');
    expect(roughDuration(1_200 * 86_400, 'cs')).toBe('1\u00a0200 dní');
    expect(roughDuration(1_200 * 86_400, 'en')).toBe('1,200 days');
  });

  it('keeps one decimal under ten hours', () => {
    expect(roughDuration(1.5 * 3600, 'cs')).toBe('1,5 h');
    expect(roughDuration(1.25 * 3600, 'en')).toBe('1.3 h');
  });
});

describe('textsFor', () => {
  it('picks the language', () => {
    expect(textsFor({ en: 'yes', cs: 'ano' }, 'cs')).toBe('ano');
    expect(textsFor({ en: 'yes', cs: 'ano' }, 'en')).toBe('yes');
  });
});
