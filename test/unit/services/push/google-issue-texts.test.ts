import { describe, expect, it } from 'vitest';
import type { RenderedIssueText } from '../../../../src/core/push/google-rendered-issues.js';
import type { RenderedIssuesRead } from '../../../../src/services/push/google-account-port.js';
import {
  ISSUE_TEXTS_TTL_MS,
  RENDERED_CODES_MAX,
  readAccountIssues,
  renderIssueTexts,
} from '../../../../src/services/push/google-issue-texts.js';

const WORDS: Record<string, Record<string, string>> = {
  cs: { image_link_broken: 'Neplatný obrázek', price_mismatch: 'Neshoda ceny', gtin_invalid: 'Neplatné GTIN' },
  en: { image_link_broken: 'Invalid image', price_mismatch: 'Price mismatch', gtin_invalid: 'Invalid GTIN' },
};

/** Google renders a product's issues without their codes, in an order of its own (here: reversed). */
function fakeGoogle(products: Record<string, readonly string[]>, now = { at: Date.parse('2026-11-29T10:00:00Z') }) {
  const calls: string[] = [];
  const words = structuredClone(WORDS);
  const deps = {
    reads: {
      renderedIssues: async (subject: { readonly offerId?: string }, lang: string): Promise<RenderedIssuesRead> => {
        calls.push(`${subject.offerId ?? 'account'}:${lang}`);
        if (subject.offerId === undefined)
          return { issues: [{ title: lang === 'cs' ? 'Účet pozastaven' : 'Account suspended', severity: 'ERROR' }] };
        const codes = products[subject.offerId] ?? [];
        const issues: RenderedIssueText[] = [...codes].reverse().map((code) => ({ title: words[lang]?.[code] ?? code }));
        return { issues };
      },
    },
    paced: async <T>(call: () => Promise<T>) => call(),
    now: () => now.at,
  };
  return { deps, calls, now, words };
}

describe("Google's issue texts", () => {
  it('matches texts to codes by elimination over the products with the fewest issues, in Czech and English', async () => {
    const { deps, calls } = fakeGoogle({ a: ['image_link_broken'], b: ['image_link_broken', 'price_mismatch'] });
    const subjects = [
      { code: 'image_link_broken', offerId: 'a', codes: ['image_link_broken'] },
      { code: 'price_mismatch', offerId: 'b', codes: ['image_link_broken', 'price_mismatch'] },
    ];
    const { texts, problem } = await renderIssueTexts(deps, subjects, undefined);
    expect(problem).toBeUndefined();
    expect(texts.image_link_broken?.texts).toEqual({ cs: { title: 'Neplatný obrázek' }, en: { title: 'Invalid image' } });
    expect(texts.image_link_broken?.example).toBe('a');
    expect(texts.price_mismatch?.texts).toEqual({ cs: { title: 'Neshoda ceny' }, en: { title: 'Price mismatch' } });
    expect(calls.sort()).toEqual(['a:cs', 'a:en', 'b:cs', 'b:en']);
  });

  it('leaves a code it cannot tell apart without a text rather than guessing, and asks again only a day later', async () => {
    const { deps, calls, now } = fakeGoogle({ b: ['gtin_invalid', 'price_mismatch'] });
    const subjects = [
      { code: 'gtin_invalid', offerId: 'b', codes: ['gtin_invalid', 'price_mismatch'] },
      { code: 'price_mismatch', offerId: 'b', codes: ['gtin_invalid', 'price_mismatch'] },
    ];
    const { texts } = await renderIssueTexts(deps, subjects, undefined);
    expect(texts.gtin_invalid).toEqual({ renderedAt: '2026-11-29T10:00:00.000Z', example: 'b', texts: {} });
    calls.length = 0;
    now.at += 60_000;
    await renderIssueTexts(deps, subjects, texts);
    expect(calls).toEqual([]);
  });

  it("takes Google's new wording once the day is over", async () => {
    const { deps, now, words } = fakeGoogle({ a: ['image_link_broken'] });
    const subjects = [{ code: 'image_link_broken', offerId: 'a', codes: ['image_link_broken'] }];
    const first = await renderIssueTexts(deps, subjects, undefined);
    expect(first.texts.image_link_broken?.texts.cs?.title).toBe('Neplatný obrázek');
    (words.cs as Record<string, string>).image_link_broken = 'Obrázek nelze stáhnout';
    now.at += ISSUE_TEXTS_TTL_MS;
    const second = await renderIssueTexts(deps, subjects, first.texts);
    expect(second.texts.image_link_broken?.texts.cs?.title).toBe('Obrázek nelze stáhnout');
    expect(second.texts.image_link_broken?.renderedAt).toBe(new Date(now.at).toISOString());
  });

  it('asks again only for codes whose texts are a day old, and at most the codes on the most items', async () => {
    const { deps, calls, now } = fakeGoogle({ a: ['image_link_broken'] });
    const subjects = [{ code: 'image_link_broken', offerId: 'a', codes: ['image_link_broken'] }];
    const first = await renderIssueTexts(deps, subjects, undefined);
    calls.length = 0;
    now.at += ISSUE_TEXTS_TTL_MS - 1;
    expect((await renderIssueTexts(deps, subjects, first.texts)).texts).toEqual(first.texts);
    expect(calls).toEqual([]);
    now.at += 2;
    await renderIssueTexts(deps, subjects, first.texts);
    expect(calls).toEqual(['a:cs', 'a:en']);

    calls.length = 0;
    const many = Array.from({ length: RENDERED_CODES_MAX + 5 }, (_, index) => ({
      code: `c${index}`,
      offerId: `p${index}`,
      codes: [`c${index}`],
    }));
    await renderIssueTexts(deps, many, undefined);
    expect(calls).toHaveLength(RENDERED_CODES_MAX * 2);
  });

  it('stops at a failed call and keeps the texts rendered before', async () => {
    const { deps } = fakeGoogle({ a: ['image_link_broken'] });
    const kept = {
      image_link_broken: { renderedAt: '2026-11-27T10:00:00.000Z', example: 'a', texts: { cs: { title: 'Starý text' } } },
    };
    const failing = { ...deps, reads: { renderedIssues: async () => ({ problem: 'renderproductissues answered HTTP 503' }) } };
    const result = await renderIssueTexts(
      failing,
      [{ code: 'image_link_broken', offerId: 'a', codes: ['image_link_broken'] }],
      kept,
    );
    expect(result).toEqual({ texts: kept, problem: 'renderproductissues answered HTTP 503' });
    const spent = { ...deps, paced: async () => undefined };
    const before = { readAt: '2026-11-29T09:00:00.000Z', texts: { cs: [{ title: 'Neověřený web' }] } };
    expect(await readAccountIssues(spent as never, before)).toEqual({
      ...before,
      lastError: { at: '2026-11-29T10:00:00.000Z', message: "the day's quota is spent" },
    });
    const stopped = new AbortController();
    stopped.abort();
    const none = await renderIssueTexts(
      { ...deps, signal: stopped.signal },
      [{ code: 'x', offerId: 'a', codes: ['x'] }],
      undefined,
    );
    expect(none.problem).toBe('stopped');
  });

  it("reads the account's issues in both languages", async () => {
    const { deps } = fakeGoogle({});
    expect(await readAccountIssues(deps, undefined)).toEqual({
      readAt: '2026-11-29T10:00:00.000Z',
      texts: { cs: [{ title: 'Účet pozastaven', severity: 'ERROR' }], en: [{ title: 'Account suspended', severity: 'ERROR' }] },
    });
  });
});
