import type { IssueTexts } from '../../core/push/channel-verdicts.js';
import { isGoogleHelpLink, isGoogleLink } from '../../core/push/google-links.js';
import type { GoogleIssue, GoogleVerdict } from '../../core/push/google-product-status.js';
import type { RenderedIssueText } from '../../core/push/google-rendered-issues.js';
import { formatDateTime, type Lang } from '../../core/text/local-text.js';
import type { GoogleVerdictView } from '../../services/products/product-lookup.js';
import { type VerdictTexts as Texts, verdictTexts } from './channel-verdict-texts.js';
import { escapeHtml as h } from './html.js';

/**
 * A product page's section on Google's verdict (docs/console.md#product-detail): approved, pending or
 * disapproved per reporting context and country, and each issue with the attribute at fault, what to do and
 * Google's help page. Where Google rendered an issue's texts in the console's language (the issue codes on
 * the most products), they lead; otherwise Google's English words are shown, marked `lang="en"`.
 * Stable ids for tests: `#google-verdict` with class `approved`, `pending`, `disapproved` or `unknown`.
 */

function countries(label: string, list: readonly string[], css: string): string {
  return list.length === 0 ? '' : ` <span class="${css}">${h(label)} ${h(list.join(', '))}</span>`;
}

function destinations(t: Texts, verdict: GoogleVerdict): string {
  if (verdict.destinations.length === 0) return '';
  const rows = verdict.destinations
    .map(
      (destination) =>
        `<li>${h(t.contexts[destination.context] ?? destination.context)}:${countries(t.approved, destination.approved, 'good')}${countries(t.pending, destination.pending, 'muted')}${countries(t.disapproved, destination.disapproved, 'bad')}</li>`,
    )
    .join('');
  return `<ul class="google-destinations">${rows}</ul>`;
}

/** Google's help pages only: a link elsewhere in an answer is not followed from the console. */
export function helpLink(t: Texts, documentation: string | undefined): string {
  if (!isGoogleHelpLink(documentation)) return '';
  return ` <a href="${h(documentation)}" rel="noreferrer noopener">${h(t.help)}</a>`;
}

/** Google's rendered words on one issue: impact, detail (plain text, lines kept) and its actions. */
export function renderedIssueBody(t: Texts, text: RenderedIssueText): string {
  const impact = text.impact === undefined ? '' : `<br><span class="muted">${h(text.impact)}</span>`;
  const breakdowns = (text.breakdowns ?? [])
    .map((breakdown) => `<li>${h(breakdown.regions)}: ${h(breakdown.details.join('; '))}</li>`)
    .join('');
  const detail = text.detail === undefined ? '' : `<p class="issue-detail">${h(text.detail).replace(/\n/g, '<br>')}</p>`;
  const actions = (text.actions ?? [])
    .map((action) => {
      // Checked again here: a stored text is shown long after it was read.
      const label = isGoogleLink(action.uri)
        ? `<a href="${h(action.uri)}" rel="noreferrer noopener">${h(action.label)}</a>`
        : h(action.label);
      const attribute = action.attribute === undefined ? '' : ` <span class="muted">${h(t.edit(action.attribute))}</span>`;
      const content =
        action.content === undefined ? '' : `<br><span class="muted">${h(action.content).replace(/\n/g, '<br>')}</span>`;
      return `<li>${label}${attribute}${content}</li>`;
    })
    .join('');
  return `${impact}${breakdowns === '' ? '' : `<ul class="issue-impact">${breakdowns}</ul>`}${detail}${
    actions === '' ? '' : `<ul class="issue-actions">${actions}</ul>`
  }`;
}

/**
 * One issue. Google's rendered texts lead where it rendered them: whole on the page of the product they were
 * rendered for; elsewhere only their title, beside this product's own words from Google (in English), and a
 * link to that product's page for the rest (Google words the detail and its links for that product).
 */
function issueItem(t: Texts, issue: GoogleIssue, rendered: RenderedFor | undefined, productHref: (id: string) => string): string {
  const severity = t.severity[issue.severity] ?? issue.severity;
  const css = issue.severity === 'DISAPPROVED' ? 'bad' : 'muted';
  const attribute = issue.attribute === undefined ? '' : ` · ${h(t.attribute)} <code>${h(issue.attribute)}</code>`;
  const where = issue.context === undefined ? '' : ` · ${h(t.contexts[issue.context] ?? issue.context)}`;
  const resolution = issue.resolution === undefined ? '' : ` · ${h(t.resolution[issue.resolution] ?? issue.resolution)}`;
  const text = rendered?.text;
  const head = `<span class="${css}">${h(severity)}</span>${text === undefined ? '' : ` <strong>${h(text.title)}</strong>`} <code>${h(issue.code)}</code>${attribute}${where}${resolution}`;
  const words = [issue.description, issue.detail].filter((part) => part !== undefined).join(' — ');
  const english = words === '' ? '' : `<br><span lang="en">${h(words)}</span>`;
  let body = english;
  if (text !== undefined && rendered?.own === true) body = renderedIssueBody(t, text);
  else if (text !== undefined && rendered !== undefined) {
    body = `${english}<br><span class="muted">${h(t.renderedFor)} <a href="${h(productHref(rendered.example))}">${h(rendered.example)}</a></span>`;
  }
  return `<li class="google-issue">${head}${body}${helpLink(t, issue.documentation)}</li>`;
}

/** Google's text of an issue in the page's language, and whether it was rendered for this very product. */
interface RenderedFor {
  readonly text: RenderedIssueText;
  readonly example: string;
  readonly own: boolean;
}

/** The text of `code` in `lang` where Google rendered it, and for which product. */
function renderedFor(texts: IssueTexts | undefined, code: string, lang: Lang, offerId: string): RenderedFor | undefined {
  const entry = texts?.[code];
  const text = entry?.texts[lang];
  return entry === undefined || text === undefined ? undefined : { text, example: entry.example, own: entry.example === offerId };
}

/** The section, or nothing when Google's verdicts are not read (Google not configured). */
export function googleVerdictSection(
  lang: Lang,
  view: GoogleVerdictView | undefined,
  /** A product page's address as the console links it (its token and language kept). */
  productHref: (id: string) => string,
): string {
  if (view === undefined) return '';
  const t = verdictTexts(lang);
  const error = view.lastError === undefined ? '' : `<p class="bad">${h(t.lastError(view.lastError.message))}</p>`;
  if (view.readAt === undefined) {
    return `<h2>${h(t.heading)}</h2><section id="google-verdict" class="unknown"><p class="muted">${h(t.notRead)}</p>${error}</section>`;
  }
  const checked = `<p class="muted">${h(t.checked(formatDateTime(lang, view.readAt)))}</p>`;
  const verdict = view.verdict;
  if (verdict === undefined) {
    return `<h2>${h(t.heading)}</h2><section id="google-verdict" class="unknown"><p>${h(t.notListed)}</p>${checked}${error}</section>`;
  }
  const css = verdict.status === 'approved' ? 'good' : verdict.status === 'disapproved' ? 'bad' : 'muted';
  const issues =
    verdict.issues.length === 0
      ? `<p class="muted">${h(t.noIssues)}</p>`
      : `<h3>${h(t.issues)}</h3><ul class="google-issues">${verdict.issues
          .map((issue) => issueItem(t, issue, renderedFor(view.issueTexts, issue.code, lang, verdict.offerId), productHref))
          .join('')}</ul>`;
  return `<h2>${h(t.heading)}</h2><section id="google-verdict" class="${h(verdict.status)}"><p><strong class="${css}">${h(
    t.status[verdict.status],
  )}</strong></p>${destinations(t, verdict)}${issues}${checked}${error}</section>`;
}
