import { plural, textsFor } from '../../core/text/local-text.js';
import type { ConsoleWarning, WarningSeverity } from '../../services/console/console-warnings.js';
import { escapeHtml as h } from './html.js';
import type { ConsoleContext } from './layout.js';

/** The warnings page's texts (docs/console.md#warnings). */
const en = {
  title: 'Warnings',
  intro:
    'Everything the bridge found that you should fix or know about, the most serious first. Each says what is wrong and what to do.',
  none: 'Nothing to fix.',
  groups: { error: 'Errors', warning: 'Warnings', info: 'For your information' } satisfies Record<WarningSeverity, string>,
  severity: { error: 'error', warning: 'warning', info: 'information' } satisfies Record<WarningSeverity, string>,
  summary: (count: number) => plural('en', count, { one: '# item to look at', other: '# items to look at' }),
  whatToDo: 'What to do:',
  explained: 'What it means',
};

const cs: typeof en = {
  title: 'Upozornění',
  intro:
    'Všechno, co bridge našel a co byste měli opravit nebo vědět, od nejzávažnějšího. U každého stojí, co je špatně a co udělat.',
  none: 'Není co opravovat.',
  groups: { error: 'Chyby', warning: 'Upozornění', info: 'Pro informaci' },
  severity: { error: 'chyba', warning: 'upozornění', info: 'informace' },
  summary: (count) =>
    plural('cs', count, { one: '# věc k prohlédnutí', few: '# věci k prohlédnutí', other: '# věcí k prohlédnutí' }),
  whatToDo: 'Co udělat:',
  explained: 'Co to znamená',
};

export const WARNINGS_TEXTS = { en, cs };

const SEVERITIES: readonly WarningSeverity[] = ['error', 'warning', 'info'];
const SEVERITY_CLASS: Readonly<Record<WarningSeverity, string>> = { error: 'failed-notice', warning: '', info: 'info-notice' };

function warningItem(warning: ConsoleWarning, context: ConsoleContext): string {
  const t = textsFor(WARNINGS_TEXTS, context.lang);
  const anchor = warning.docs ?? warning.code;
  return `<li class="notice ${SEVERITY_CLASS[warning.severity]}" data-code="${h(warning.code)}"><strong>${h(t.severity[warning.severity])}</strong> · <code>${h(warning.code)}</code>${
    warning.subject === undefined ? '' : ` · ${h(warning.subject)}`
  }<p>${h(warning.message[context.lang])}</p><p><strong>${h(t.whatToDo)}</strong> ${h(warning.action[context.lang])}</p><a href="/docs/report-codes#${encodeURIComponent(anchor)}">${h(t.explained)}</a></li>`;
}

/** The page's body: the warnings grouped by severity. */
export function warningsBody(warnings: readonly ConsoleWarning[], context: ConsoleContext): string {
  const t = textsFor(WARNINGS_TEXTS, context.lang);
  if (warnings.length === 0) return `<p>${h(t.intro)}</p><p class="good">${h(t.none)}</p>`;
  const groups = SEVERITIES.map((severity) => {
    const items = warnings.filter((warning) => warning.severity === severity);
    if (items.length === 0) return '';
    return `<section aria-labelledby="${severity}"><h2 id="${severity}">${h(t.groups[severity])} (${items.length})</h2><ul class="warnings">${items
      .map((warning) => warningItem(warning, context))
      .join('')}</ul></section>`;
  });
  return `<style>ul.warnings{list-style:none;padding:0}ul.warnings p{margin:.3rem 0}.info-notice{background:#e8f0fe;border-left-color:#0b57d0}</style><p>${h(t.intro)}</p><p>${h(t.summary(warnings.length))}</p>${groups.join('')}`;
}
