import type { AccountIssues, IssueTexts } from '../../core/push/channel-verdicts.js';
import { matchIssueTexts, type RenderedExample, type RenderedIssueText } from '../../core/push/google-rendered-issues.js';
import { LANGS } from '../../core/text/local-text.js';
import type { GoogleAccountReads } from './google-account-port.js';

/**
 * Google's own texts of the issues, in the console's languages (docs/channel-push.md#googles-verdicts): after
 * a read of the verdicts, the issue codes on the most items are rendered through one example product each
 * (the one with the fewest other issues), and the account's issues are rendered too. Within a budget: at most
 * `RENDERED_CODES_MAX` codes a read, each code's texts kept a day, every call paced with the sends. A call
 * that fails stops the rendering of that read; the texts rendered before stay.
 */

/** Issue codes rendered at most per read: each costs one call per language. */
export const RENDERED_CODES_MAX = 20;
/** How long a code's texts are kept before Google is asked again (its wording changes rarely). */
export const ISSUE_TEXTS_TTL_MS = 24 * 60 * 60_000;

export interface IssueTextsDeps {
  readonly reads: Pick<GoogleAccountReads, 'renderedIssues'>;
  /** A call in turn with the sends; `undefined` while the day's quota is spent. */
  readonly paced: <T>(call: () => Promise<T>) => Promise<T | undefined>;
  readonly now: () => number;
}

export interface RenderSubject {
  readonly code: string;
  readonly offerId: string;
  /** Every issue code of that product. */
  readonly codes: readonly string[];
}

type Rendered = { readonly issues: readonly RenderedIssueText[] } | { readonly problem: string };

async function render(deps: IssueTextsDeps, offerId: string | undefined, lang: string): Promise<Rendered> {
  const read = await deps.paced(() => deps.reads.renderedIssues(offerId === undefined ? {} : { offerId }, lang));
  return read ?? { problem: "the day's quota is spent" };
}

/**
 * The texts of `subjects`' codes: those rendered within a day are taken from `previous`, the rest asked of
 * Google; codes no longer among the subjects are dropped. `problem` names the call that failed, if one did.
 */
export async function renderIssueTexts(
  deps: IssueTextsDeps,
  subjects: readonly RenderSubject[],
  previous: IssueTexts | undefined,
): Promise<{ readonly texts: IssueTexts; readonly problem?: string }> {
  const now = deps.now();
  const texts: Record<string, IssueTexts[string]> = {};
  const due: RenderSubject[] = [];
  for (const subject of subjects.slice(0, RENDERED_CODES_MAX)) {
    const kept = previous?.[subject.code];
    const fresh = kept !== undefined && now - Date.parse(kept.renderedAt) < ISSUE_TEXTS_TTL_MS;
    if (kept !== undefined) texts[subject.code] = kept;
    if (!fresh) due.push(subject);
  }
  if (due.length === 0) return { texts };
  const examples = new Map<string, readonly string[]>(due.map((subject) => [subject.offerId, subject.codes]));
  const renderedAt = new Date(now).toISOString();
  for (const lang of LANGS) {
    const rendered: RenderedExample[] = [];
    for (const [offerId, codes] of examples) {
      const answer = await render(deps, offerId, lang);
      if ('problem' in answer) return { texts, problem: answer.problem };
      rendered.push({ codes, rendered: answer.issues });
    }
    // What is known in this language (texts kept from before) helps tell a product's issues apart.
    const known = new Map<string, RenderedIssueText>();
    for (const [code, entry] of Object.entries(texts)) {
      const text = entry.texts[lang];
      if (text !== undefined) known.set(code, text);
    }
    matchIssueTexts(rendered, known);
    for (const { code } of due) {
      const text = known.get(code);
      if (text === undefined) continue;
      texts[code] = { renderedAt, texts: { ...texts[code]?.texts, [lang]: text } };
    }
  }
  return { texts };
}

/** The account's issues in each of the console's languages (two calls), or the problem of the one that failed. */
export async function readAccountIssues(deps: IssueTextsDeps): Promise<AccountIssues> {
  const texts: Partial<Record<string, readonly RenderedIssueText[]>> = {};
  for (const lang of LANGS) {
    const answer = await render(deps, undefined, lang);
    if ('problem' in answer) return { problem: answer.problem };
    texts[lang] = answer.issues.slice(0, 20);
  }
  return { readAt: new Date(deps.now()).toISOString(), texts };
}
