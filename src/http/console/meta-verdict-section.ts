import type { MetaDiagnostics, MetaVerdictSummary } from '../../core/push/meta-verdicts.js';
import { formatDateTime, formatNumber, type Lang, textsFor } from '../../core/text/local-text.js';
import type { MetaVerdictView } from '../../services/products/product-lookup.js';
import { escapeHtml as h } from './html.js';

/**
 * Meta's verdicts in the console (docs/console.md): on a product's page, whether Meta found the item invalid
 * when it was last sent, with Meta's message (`#meta-verdict`, class `invalid` or `clean`); on the overview, the items Meta
 * found invalid with its messages on the most, and the catalog's diagnostics (`#verdicts-meta`). Meta's own
 * words come in English: marked `lang="en"`.
 */

const en = {
  heading: "Meta's verdict",
  invalid: 'Meta found the item invalid when it was last sent:',
  at: (at: string) => `reported ${at} (UTC)`,
  clean: 'Meta reports no error on this item.',
  fix: 'Fix the value where it comes from (the POS, or the enrichment sheet); once the whole item is sent again and Meta takes it, the error clears.',
  overview: "Meta's verdicts",
  invalidCount: (count: string) => `items invalid when last sent: ${count}`,
  noneInvalid: 'no item invalid when last sent',
  onItems: (items: string) => `on ${items}`,
  example: 'e.g.',
  diagnostics: (at: string) => `Catalog diagnostics (read ${at} UTC):`,
  noDiagnostics: (at: string) => `Catalog diagnostics (read ${at} UTC): no issue.`,
  diagnosticsFailed: (message: string) => `The last read of the catalog diagnostics failed (${message}); those before are shown.`,
  items: (count: string) => `items: ${count}`,
  severity: { MUST_FIX: 'must fix', OPPORTUNITY: 'opportunity' } as Record<string, string>,
};

const cs: typeof en = {
  heading: 'Verdikt Mety',
  invalid: 'Meta při posledním odeslání označila položku za neplatnou:',
  at: (at: string) => `hlášeno ${at} (UTC)`,
  clean: 'Meta u této položky nehlásí žádnou chybu.',
  fix: 'Opravte hodnotu tam, odkud pochází (v pokladně, nebo v tabulce obohacení); jakmile se celá položka znovu odešle a Meta ji přijme, chyba zmizí.',
  overview: 'Verdikty Mety',
  invalidCount: (count: string) => `položky označené při posledním odeslání za neplatné: ${count}`,
  noneInvalid: 'žádná položka označená za neplatnou',
  onItems: (items: string) => `u ${items}`,
  example: 'např.',
  diagnostics: (at: string) => `Diagnostika katalogu (načtena ${at} UTC):`,
  noDiagnostics: (at: string) => `Diagnostika katalogu (načtena ${at} UTC): bez problémů.`,
  diagnosticsFailed: (message: string) =>
    `Poslední načtení diagnostiky katalogu selhalo (${message}); zobrazuje se ta předchozí.`,
  items: (count: string) => `počet položek: ${count}`,
  severity: { MUST_FIX: 'nutno opravit', OPPORTUNITY: 'příležitost' },
};

const TEXTS = { en, cs } as const;
type Texts = typeof en;

/** The product page's section, or nothing when Meta's verdicts are not kept (not pushed to, or a dry run). */
export function metaVerdictSection(lang: Lang, view: MetaVerdictView | undefined): string {
  if (view === undefined) return '';
  const t = textsFor(TEXTS, lang);
  const issue = view.issue;
  if (issue === undefined) {
    return `<h2>${h(t.heading)}</h2><section id="meta-verdict" class="clean"><p class="muted">${h(t.clean)}</p></section>`;
  }
  return `<h2>${h(t.heading)}</h2><section id="meta-verdict" class="invalid"><p><strong class="bad">${h(t.invalid)}</strong> <span lang="en">${h(
    issue.message,
  )}</span></p><p class="muted">${h(t.at(formatDateTime(lang, issue.at)))}. ${h(t.fix)}</p></section>`;
}

function diagnosticsBlock(lang: Lang, t: Texts, diagnostics: MetaDiagnostics | undefined): string {
  if (diagnostics === undefined) return '';
  const error =
    diagnostics.lastError === undefined ? '' : `<p class="muted">${h(t.diagnosticsFailed(diagnostics.lastError.message))}</p>`;
  if (diagnostics.readAt === undefined) return error;
  const at = formatDateTime(lang, diagnostics.readAt);
  if (diagnostics.groups.length === 0) return `<p id="meta-diagnostics" class="muted">${h(t.noDiagnostics(at))}</p>${error}`;
  const items = diagnostics.groups
    .map((group) => {
      const css = group.severity === 'MUST_FIX' ? 'bad' : 'muted';
      const count = group.items === undefined ? '' : ` · ${h(t.items(formatNumber(lang, group.items)))}`;
      const subtitle = group.subtitle === undefined ? '' : `<br><span lang="en" class="muted">${h(group.subtitle)}</span>`;
      return `<li><span class="${css}">${h(t.severity[group.severity] ?? group.severity)}</span> <span lang="en">${h(group.title)}</span> <code>${h(
        group.type,
      )}</code>${count}${subtitle}</li>`;
    })
    .join('');
  return `<div id="meta-diagnostics"><p>${h(t.diagnostics(at))}</p><ul>${items}</ul></div>${error}`;
}

/** The overview's lines on Meta's verdicts (`#verdicts-meta`). */
export function metaVerdictsOverview(lang: Lang, summary: MetaVerdictSummary, productHref: (id: string) => string): string {
  const t = textsFor(TEXTS, lang);
  const count =
    summary.invalid === 0
      ? `<p class="muted">${h(t.noneInvalid)}</p>`
      : `<p class="bad">${h(t.invalidCount(formatNumber(lang, summary.invalid)))}</p>`;
  const messages =
    summary.topMessages.length === 0
      ? ''
      : `<ul>${summary.topMessages
          .map(
            (top) =>
              `<li><span lang="en">${h(top.message)}</span> ${h(t.onItems(formatNumber(lang, top.items)))} (${h(t.example)} <a href="${h(
                productHref(top.example),
              )}">${h(top.example)}</a>)</li>`,
          )
          .join('')}</ul>`;
  return `<div id="verdicts-meta"><h3>${h(t.overview)}</h3>${count}${messages}${diagnosticsBlock(lang, t, summary.diagnostics)}</div>`;
}
