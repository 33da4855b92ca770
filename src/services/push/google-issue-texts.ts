import type { AccountIssues, IssueTexts } from '../../core/push/channel-verdicts.js';
import { matchIssueTexts, type RenderedExample, type RenderedIssueText } from '../../core/push/google-rendered-issues.js';
import { LANGS } from '../../core/text/local-text.js';
import type { GoogleAccountReads } from './google-account-port.js';

/**
 * Google's own texts of the issues, in the console's languages (docs/channel-push.md#googles-verdicts): after
 * a read of the verdicts, the issue codes on the most items are rendered through one example product each
 * (the one with the fewest other issues), and the account's issues are rendered too. Within a budget: at most
 * `RENDERED_CODES_MAX` codes a read, each code asked at most once a day (whether its texts could be told apart
 * or not), every call paced with the sends. A call that fails, or a stop, ends the rendering of that read; the
 * texts rendered before stay.
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
  /** A stop: no call is made after it. */
  readonly signal?: AbortSignal;
}

export interface RenderSubject {
  readonly code: string;
  readonly offerId: string;
  /** Every issue code of that product. */
  readonly codes: readonly string[];
}

type Rendered = { readonly issues: readonly RenderedIssueText[] } | { readonly problem: string };

async function render(deps: IssueTextsDeps, offerId: string | undefined, lang: string): Promise<Rendered> {
  if (deps.signal?.aborted === true) return { problem: 'stopped' };
  const read = await deps.paced(() => deps.reads.renderedIssues(offerId === undefined ? {} : { offerId }, lang));
  return read ?? { problem: "the day's quota is spent" };
}

/** Renders the due subjects' example products in one language; the texts matched to their codes. */
async function renderLanguage(
  deps: IssueTextsDeps,
  due: readonly RenderSubject[],
  fresh: IssueTexts,
  lang: string,
): Promise<{ readonly known: ReadonlyMap<string, RenderedIssueText> } | { readonly problem: string }> {
  const examples = new Map<string, readonly string[]>(due.map((subject) => [subject.offerId, subject.codes]));
  const rendered: RenderedExample[] = [];
  for (const [offerId, codes] of examples) {
    const answer = await render(deps, offerId, lang);
    if ('problem' in answer) return answer;
    rendered.push({ codes, rendered: answer.issues });
  }
  // What is known and fresh in this language helps tell a product's issues apart; a due code is matched anew.
  const known = new Map<string, RenderedIssueText>();
  for (const [code, entry] of Object.entries(fresh)) {
    const text = entry.texts[lang];
    if (text !== undefined) known.set(code, text);
  }
  matchIssueTexts(rendered, known);
  return { known };
}

/**
 * The texts of `subjects`' codes: those asked for within a day are taken from `previous`, the rest asked of
 * Google; codes no longer among the subjects are dropped. A code Google's texts could not be told apart for
 * keeps its former texts (if any) and waits a day like the others. `problem` names the call that failed.
 */
export async function renderIssueTexts(
  deps: IssueTextsDeps,
  subjects: readonly RenderSubject[],
  previous: IssueTexts | undefined,
): Promise<{ readonly texts: IssueTexts; readonly problem?: string }> {
  const now = deps.now();
  const texts: Record<string, IssueTexts[string]> = {};
  const fresh: Record<string, IssueTexts[string]> = {};
  const due: RenderSubject[] = [];
  for (const subject of subjects.slice(0, RENDERED_CODES_MAX)) {
    const kept = previous?.[subject.code];
    if (kept !== undefined) texts[subject.code] = kept;
    if (kept !== undefined && now - Date.parse(kept.renderedAt) < ISSUE_TEXTS_TTL_MS) fresh[subject.code] = kept;
    else due.push(subject);
  }
  if (due.length === 0) return { texts };
  const renderedAt = new Date(now).toISOString();
  const matched = new Map<string, Record<string, RenderedIssueText>>();
  for (const lang of LANGS) {
    const result = await renderLanguage(deps, due, fresh, lang);
    if ('problem' in result) return { texts, problem: result.problem };
    for (const { code } of due) {
      const text = result.known.get(code);
      if (text !== undefined) matched.set(code, { ...matched.get(code), [lang]: text });
    }
  }
  for (const { code, offerId } of due) {
    const found = matched.get(code);
    const kept = texts[code];
    // Not told apart this time: the former texts (of their own example) stay, asked again in a day.
    texts[code] =
      found === undefined && kept !== undefined ? { ...kept, renderedAt } : { renderedAt, example: offerId, texts: found ?? {} };
  }
  return { texts };
}

/**
 * The account's issues in each of the console's languages (two calls). A read that fails keeps the issues
 * read before and notes the error beside them.
 */
export async function readAccountIssues(deps: IssueTextsDeps, previous: AccountIssues | undefined): Promise<AccountIssues> {
  const texts: Partial<Record<string, readonly RenderedIssueText[]>> = {};
  for (const lang of LANGS) {
    const answer = await render(deps, undefined, lang);
    if ('problem' in answer) {
      const { lastError: _before, ...kept } = previous ?? { texts: {} };
      return { ...kept, lastError: { at: new Date(deps.now()).toISOString(), message: answer.problem } };
    }
    texts[lang] = answer.issues.slice(0, 20);
  }
  return { readAt: new Date(deps.now()).toISOString(), texts };
}
