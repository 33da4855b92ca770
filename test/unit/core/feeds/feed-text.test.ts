import { describe, expect, it } from 'vitest';
import { applyTextRule, createTextRule, singleLine } from '../../../../src/core/feeds/apply-text-rule.js';
import { cleanText } from '../../../../src/core/feeds/clean-text.js';
import { CSV_DIALECTS, excelText } from '../../../../src/core/feeds/csv-dialect.js';
import { encodeUrl } from '../../../../src/core/feeds/encode-url.js';
import { escapeXmlAttribute, escapeXmlText } from '../../../../src/core/feeds/escape-xml.js';
import { FEED_FILTERS, slugify } from '../../../../src/core/feeds/feed-filters.js';
import { formatMoney, formatPlainNumber } from '../../../../src/core/feeds/format-number.js';
import { normalizeGtin } from '../../../../src/core/feeds/normalize-gtin.js';
import { countCodePoints, truncateAtWord, truncateText } from '../../../../src/core/feeds/truncate-text.js';

describe('feeds/clean-text', () => {
  it('removes C0 controls except TAB/LF/CR, DEL, C1 controls, U+FFFE/U+FFFF and lone surrogates', () => {
    expect(cleanText('a\u0000b\u0001c\u0008d\u000Be\u000Cf\u001Fg\u007Fh\u0085i\u009Fj\uFFFEk\uFFFFl')).toBe('abcdefghijkl');
    expect(cleanText('tab\tlf\ncr\r')).toBe('tab\tlf\ncr\r');
    expect(cleanText('lone \uD800 high, lone \uDC00 low, reversed \uDC00\uD800.')).toBe('lone  high, lone  low, reversed .');
  });

  it('keeps diacritics, emoji and entity-like text unchanged', () => {
    expect(cleanText('Příliš žluťoučký kůň 😀 &eacute; ]]>')).toBe('Příliš žluťoučký kůň 😀 &eacute; ]]>');
  });

  it('never creates a new lone surrogate by removing the character between a pair', () => {
    expect(cleanText('\uD83D\u0001\uDE00')).toBe('');
  });
});

describe('feeds/escape-xml', () => {
  it('escapes all five specials in text, and CR as a reference', () => {
    expect(escapeXmlText(`a & b < c > d " e ' f\r\n\tg`)).toBe('a &amp; b &lt; c &gt; d &quot; e &apos; f&#13;\n\tg');
  });

  it('escapes TAB, LF and CR in attributes so normalisation cannot change them', () => {
    expect(escapeXmlAttribute('a\tb\nc\rd"&')).toBe('a&#9;b&#10;c&#13;d&quot;&amp;');
  });

  it('escapes entity-like text instead of passing it through', () => {
    expect(escapeXmlText('&eacute;')).toBe('&amp;eacute;');
  });
});

describe('feeds/truncate-text', () => {
  it('counts and cuts by code points without splitting a surrogate pair', () => {
    expect(countCodePoints('ab😀c')).toBe(4);
    expect(truncateText('ab😀c', 3)).toBe('ab😀');
    expect(truncateText('ab😀c', 2)).toBe('ab');
    expect(truncateText('😀😀😀', 1)).toBe('😀');
    expect(truncateText('short', 10)).toBe('short');
  });
});

describe('feeds/format-number', () => {
  it('writes money with exactly two decimals, half away from zero on the written digits', () => {
    expect(formatMoney(129)).toBe('129.00');
    expect(formatMoney(59.9)).toBe('59.90');
    expect(formatMoney(1.005)).toBe('1.01');
    expect(formatMoney(0.125, ',')).toBe('0,13');
    expect(formatMoney(-2.5)).toBe('-2.50');
    expect(formatMoney(-0.001)).toBe('0.00');
    expect(formatMoney(1e21)).toBe('1000000000000000000000.00');
    expect(formatMoney(Number.NaN)).toBeUndefined();
  });

  it('writes plain numbers without exponents', () => {
    expect(formatPlainNumber(0.5, ',')).toBe('0,5');
    expect(formatPlainNumber(1e-7)).toBe('0.0000001');
    expect(formatPlainNumber(1e21)).toBe('1000000000000000000000');
    expect(formatPlainNumber(-0)).toBe('0');
    expect(formatPlainNumber(Number.POSITIVE_INFINITY)).toBeUndefined();
  });
});

describe('feeds/normalize-gtin', () => {
  it('accepts GTIN-8/12/13/14 with a valid check digit, ignoring spaces and dashes', () => {
    expect(normalizeGtin('8594000000013')).toBe('8594000000013');
    expect(normalizeGtin('0036000291452')).toBe('0036000291452');
    expect(normalizeGtin('036000291452')).toBe('036000291452');
    expect(normalizeGtin('96385074')).toBe('96385074');
    expect(normalizeGtin('00012345600012')).toBe('00012345600012');
    expect(normalizeGtin('859 4000-000013')).toBe('8594000000013');
  });

  it('rejects wrong check digits, wrong lengths, letters, zeros and restricted-circulation numbers', () => {
    expect(normalizeGtin('8594000000018')).toBeUndefined();
    expect(normalizeGtin('859400000001')).toBeUndefined();
    expect(normalizeGtin('85940000000x3')).toBeUndefined();
    expect(normalizeGtin('0000000000000')).toBeUndefined();
    expect(normalizeGtin('2000000000008')).toBeUndefined();
    expect(normalizeGtin('+420123')).toBeUndefined();
  });
});

describe('feeds/encode-url', () => {
  it('percent-encodes non-ASCII and unsafe characters, keeping reserved ones and existing escapes', () => {
    expect(encodeUrl('https://shop.cz/káva 1kg.jpg?a=b&c=d#x')).toBe('https://shop.cz/k%C3%A1va%201kg.jpg?a=b&c=d#x');
    expect(encodeUrl('https://shop.cz/a%20b/100%')).toBe('https://shop.cz/a%20b/100%25');
    expect(encodeUrl('https://shop.cz/"<>\\^`{|}')).toBe('https://shop.cz/%22%3C%3E%5C%5E%60%7B%7C%7D');
    expect(encodeUrl('https://shop.cz/😀\uD800')).toBe('https://shop.cz/%F0%9F%98%80');
  });

  it('turns an internationalised host into punycode and rejects what is not an absolute http(s) URL', () => {
    expect(encodeUrl('https://kávovar.cz/a')).toBe('https://xn--kvovar-pta.cz/a');
    expect(encodeUrl('HTTPS://Shop.cz/A')).toBe('https://Shop.cz/A');
    expect(encodeUrl('/relative/path')).toBeUndefined();
    expect(encodeUrl('javascript:alert(1)')).toBeUndefined();
    expect(encodeUrl('https:///no-host')).toBeUndefined();
  });
});

describe('feeds/feed-filters slug', () => {
  it('makes a URL handle: lower-case ASCII words joined by one dash, accents taken off', () => {
    expect(slugify('Káva zrnková 1 kg')).toBe('kava-zrnkova-1-kg');
    expect(slugify(`Čaj "Earl Grey" & <citron> 'bio'`)).toBe('caj-earl-grey-citron-bio');
    expect(slugify('  --Příliš ŽLUŤOUČKÝ kůň 😀 ó--  ')).toBe('prilis-zlutoucky-kun-o');
    expect(slugify('Mýdlo; levandule, 100 g')).toBe('mydlo-levandule-100-g');
    expect(slugify('🎂 ☕')).toBe('');
  });

  it('is empty when nothing is left, like every filter on input it cannot use', () => {
    const slug = FEED_FILTERS['slug']?.create('', { maps: {} });
    if (typeof slug !== 'function') throw new Error('no slug filter');
    expect(slug('🎂')).toBeUndefined();
    expect(slug(undefined)).toBeUndefined();
    expect(slug(1001)).toBe('1001');
  });
});

describe('feeds/csv-dialect', () => {
  it('rfc4180 quotes only fields with a comma, quote, CR or LF', () => {
    const { text } = CSV_DIALECTS.rfc4180;
    expect(text('plain; text')).toBe('plain; text');
    expect(text('a,b')).toBe('"a,b"');
    expect(text('say "hi"')).toBe('"say ""hi"""');
    expect(text('two\nlines')).toBe('"two\nlines"');
    expect(text('=1+1')).toBe('=1+1');
  });

  it('excel neutralises formula starts and quotes on ";"', () => {
    expect(excelText('=1+1')).toBe("'=1+1");
    expect(excelText('+420')).toBe("'+420");
    expect(excelText('-5')).toBe("'-5");
    expect(excelText('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(excelText('\tx')).toBe("'\tx");
    expect(excelText('\rx')).toBe(`"'\rx"`);
    expect(excelText('a;b')).toBe('"a;b"');
    expect(excelText('a,b')).toBe('a,b');
    expect(excelText('Příliš žluťoučký')).toBe('Příliš žluťoučký');
  });

  it('excel keeps numeric-looking codes as text: a constant formula ="…", as a quoted field', () => {
    const { code } = CSV_DIALECTS.excel;
    // Opens as the text 0012345678905 in Excel and LibreOffice, zeros kept, nothing else in the cell.
    expect(code('0012345678905')).toBe('"=""0012345678905"""');
    expect(code('8594000000013')).toBe('"=""8594000000013"""');
    expect(code('1-2')).toBe('"=""1-2"""');
    expect(code('KAV-1')).toBe('KAV-1');
    expect(code('=1')).toBe("'=1");
  });

  it('tsv flattens TAB, CR and LF to spaces', () => {
    expect(CSV_DIALECTS.tsv.text('a\tb\r\nc')).toBe('a b  c');
  });
});

describe('feeds/single-line values and cuts at a word', () => {
  it('puts a name with line breaks, tabs and runs of spaces on one line', () => {
    expect(singleLine(' Káva\r\nzrnková\t 1 kg  ')).toBe('Káva zrnková 1 kg');
    expect(singleLine('Káva zrnková')).toBe('Káva zrnková');
  });

  it('cuts at the last word that fits, or at the limit for one very long word', () => {
    expect(truncateAtWord('Káva zrnková Brazílie', 15)).toBe('Káva zrnková');
    expect(truncateAtWord('Káva zrnková Brazílie', 13)).toBe('Káva zrnková');
    expect(truncateAtWord('Káva zrnková', 50)).toBe('Káva zrnková');
    expect(truncateAtWord('Superdlouhýnázevbezmezer a dál', 10)).toBe('Superdlouh');
  });

  it('counts the values it cuts', () => {
    const rule = createTextRule({ maxLength: 15 });
    const counter = { truncated: 0 };
    expect(applyTextRule('Káva\nzrnková Brazílie', rule, counter)).toBe('Káva zrnková');
    expect(applyTextRule('Čaj', rule, counter)).toBe('Čaj');
    expect(counter.truncated).toBe(1);
  });
});
