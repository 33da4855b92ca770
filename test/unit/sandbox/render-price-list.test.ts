import { describe, expect, it } from 'vitest';
import { parsePriceListXml } from '../../../src/adapters/pos/price-list-xml.js';
import { escapeXml, renderPriceList } from '../../../src/sandbox/render-price-list.js';
import { createSandboxState } from '../../../src/sandbox/sandbox-state.js';

/** What XML 1.0 cannot carry at all: C0 controls other than TAB, LF, CR, and U+FFFE, U+FFFF. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point.
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

function render(names: ReadonlyMap<number, string>): string {
  const state = createSandboxState({ seed: 7, units: 1, articles: 40 });
  for (const [index, name] of names) state.overrideArticle(index, { name });
  const [unit] = state.catalog.units;
  if (unit === undefined) throw new Error('no unit');
  return Buffer.concat([...renderPriceList(state, unit)]).toString('utf8');
}

describe('sandbox/render-price-list', () => {
  it('escapes markup and turns characters XML forbids into U+FFFD', () => {
    expect(escapeXml(`Tom & "Jerry" <'mix'>`)).toBe('Tom &amp; &quot;Jerry&quot; &lt;&apos;mix&apos;&gt;');
    expect(escapeXml('a\u0000b\u0001c\u0008d\u000Be\u000Cf\u000Eg\u001Fh\uFFFEi\uFFFFj')).toBe(
      'a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFDf\uFFFDg\uFFFDh\uFFFDi\uFFFDj',
    );
    // TAB, LF and CR are XML characters and stay; so do U+FFFD and characters beyond the BMP.
    expect(escapeXml('a\tb\nc\rd\uFFFDe😀')).toBe('a\tb\nc\rd\uFFFDe😀');
  });

  it('never emits a forbidden character, even for names imported with control characters', () => {
    const clean = render(new Map());
    const xml = render(
      new Map([
        [0, 'Káva\u0001zrnková'],
        [1, 'Čaj\u000B\u001F'],
        [2, '\u0000Hrnek & <podšálek>\uFFFF'],
      ]),
    );

    expect(FORBIDDEN.test(clean)).toBe(false);
    expect(FORBIDDEN.test(xml)).toBe(false);
    expect(xml).toContain('Káva\uFFFDzrnková');
    expect(xml).toContain('\uFFFDHrnek &amp; &lt;podšálek&gt;\uFFFD');

    // The bridge's parser reads it with nothing to tolerate, and the rows are those of the clean document.
    const parsed = parsePriceListXml(Buffer.from(xml));
    expect(parsed.summary.forbiddenCharacters).toBeUndefined();
    expect(parsed.summary.warningCount).toBe(0);
    expect(parsed.rows).toStrictEqual(parsePriceListXml(Buffer.from(clean)).rows);
  });
});

describe('sandbox/ articles kept once made', () => {
  it('sends the same documents whether it keeps its articles or makes them again', () => {
    const kept = createSandboxState({ seed: 7, units: 2, articles: 300, keepArticles: true });
    const made = createSandboxState({ seed: 7, units: 2, articles: 300 });
    for (const [index, unit] of kept.catalog.units.entries()) {
      const again = made.catalog.units[index];
      if (again === undefined) throw new Error('no unit');
      // Twice: the second read of the kept sandbox takes the articles it kept.
      for (let round = 0; round < 2; round += 1) {
        expect(Buffer.concat([...renderPriceList(kept, unit)]).equals(Buffer.concat([...renderPriceList(made, again)]))).toBe(
          true,
        );
      }
    }
    expect(kept.catalog.articleAt(5)).toBe(kept.catalog.articleAt(5));
    expect(made.catalog.articleAt(5)).not.toBe(made.catalog.articleAt(5));
    expect(made.catalog.articleAt(5)).toEqual(kept.catalog.articleAt(5));
  });
});
