import type { Lang } from '../../core/text/local-text.js';
import { textsFor } from '../../core/text/local-text.js';

/** The console's words on the channels' verdicts (the product page's section and the overview's lines). */

export const en = {
  heading: "Google's verdict",
  checked: (at: string) => `as Google reported it at ${at} (UTC)`,
  notRead: 'Not read from Google yet: the first read comes a minute after the start.',
  notListed: 'Google does not list this product (not sent yet, left out of the feed, or not yet processed).',
  lastError: (message: string) => `The last read failed (${message}); the verdict shown is the one before.`,
  status: { approved: 'approved', pending: 'pending', disapproved: 'disapproved' },
  context: 'Where',
  approved: 'approved in',
  pending: 'pending in',
  disapproved: 'disapproved in',
  issues: 'Issues',
  noIssues: 'Google reports no issue.',
  severity: { DISAPPROVED: 'disapproves', DEMOTED: 'demotes', NOT_IMPACTED: 'no impact' } as Record<string, string>,
  resolution: { MERCHANT_ACTION: 'you need to act', PENDING_PROCESSING: 'Google is still processing it' } as Record<
    string,
    string
  >,
  attribute: 'attribute',
  help: "Google's help",
  overview: (channel: string) => `${channel}'s verdicts`,
  counts: (approved: string, pending: string, disapproved: string) =>
    `approved ${approved} · pending ${pending} · disapproved ${disapproved}`,
  read: (at: string) => `read ${at} (UTC)`,
  topIssues: 'Issues on the most products',
  onItems: (items: string) => `on ${items}`,
  example: 'e.g.',
  unreadable: (count: string, first: string) => `${count} products of the listing could not be read (the first: ${first}).`,
  fileFetch: (at: string, state: string) => `Google's last fetch of google.xml: ${at} (UTC), ${state}`,
  fileItems: (total: string, created: string, updated: string) => `${total} items (${created} new, ${updated} updated)`,
  fileNotRead: (problem: string) => `Google's last fetch of google.xml could not be read: ${problem}`,
  fileStates: { SUCCEEDED: 'processed', FAILED: 'failed', IN_PROGRESS: 'being processed' } as Record<string, string>,
  accountIssues: 'Issues of the Merchant Center account',
  accountNotRead: (problem: string) => `The last read of the account's issues failed (${problem}); those read before are shown.`,
  noAccountIssues: 'Google reports no issue with the account.',
  impactSeverity: { ERROR: 'error', WARNING: 'warning', INFO: 'note' } as Record<string, string>,
  edit: (attribute: string) => `(attribute ${attribute}: fix it where the value comes from)`,
  renderedFor: "Google's full explanation, worded for another product with this issue:",
  contexts: {
    SHOPPING_ADS: 'Shopping ads',
    FREE_LISTINGS: 'Free listings',
    LOCAL_INVENTORY_ADS: 'Local inventory ads',
    FREE_LOCAL_LISTINGS: 'Free local listings',
  } as Record<string, string>,
};

const cs: typeof en = {
  heading: 'Verdikt Googlu',
  checked: (at: string) => `jak ho Google hlásil v ${at} (UTC)`,
  notRead: 'Z Googlu zatím nenačteno: první načtení přijde minutu po spuštění.',
  notListed: 'Google tento produkt nevede (ještě nebyl odeslán, feed ho vynechává, nebo ho Google ještě nezpracoval).',
  lastError: (message: string) => `Poslední načtení selhalo (${message}); zobrazený verdikt je ten předchozí.`,
  status: { approved: 'schváleno', pending: 'čeká na posouzení', disapproved: 'zamítnuto' },
  context: 'Kde',
  approved: 'schváleno v',
  pending: 'čeká v',
  disapproved: 'zamítnuto v',
  issues: 'Problémy',
  noIssues: 'Google nehlásí žádný problém.',
  severity: { DISAPPROVED: 'zamítá', DEMOTED: 'omezuje', NOT_IMPACTED: 'bez dopadu' },
  resolution: { MERCHANT_ACTION: 'je třeba zásah obchodu', PENDING_PROCESSING: 'Google ho ještě zpracovává' },
  attribute: 'atribut',
  help: 'nápověda Googlu',
  overview: (channel: string) => `Verdikty ${channel === 'Google' ? 'Googlu' : channel}`,
  counts: (approved: string, pending: string, disapproved: string) =>
    `schváleno ${approved} · čeká ${pending} · zamítnuto ${disapproved}`,
  read: (at: string) => `načteno ${at} (UTC)`,
  topIssues: 'Problémy u nejvíce produktů',
  onItems: (items: string) => `u ${items}`,
  example: 'např.',
  unreadable: (count: string, first: string) => `Produktů ze seznamu, které nešly přečíst: ${count} (první: ${first}).`,
  fileFetch: (at: string, state: string) => `Poslední stažení google.xml Googlem: ${at} (UTC), ${state}`,
  fileItems: (total: string, created: string, updated: string) =>
    `položek ${total} (nových ${created}, aktualizovaných ${updated})`,
  fileNotRead: (problem: string) => `Poslední stažení google.xml Googlem se nepodařilo zjistit: ${problem}`,
  fileStates: { SUCCEEDED: 'zpracováno', FAILED: 'selhalo', IN_PROGRESS: 'zpracovává se' },
  accountIssues: 'Problémy účtu Merchant Center',
  accountNotRead: (problem: string) => `Poslední načtení problémů účtu selhalo (${problem}); zobrazují se ty načtené dříve.`,
  noAccountIssues: 'Google nehlásí žádný problém účtu.',
  impactSeverity: { ERROR: 'chyba', WARNING: 'varování', INFO: 'poznámka' },
  edit: (attribute: string) => `(atribut ${attribute}: opravte ho tam, odkud hodnota pochází)`,
  renderedFor: 'Úplné vysvětlení Googlu, napsané pro jiný produkt se stejným problémem:',
  contexts: {
    SHOPPING_ADS: 'Reklamy v Nákupech',
    FREE_LISTINGS: 'Bezplatné zápisy',
    LOCAL_INVENTORY_ADS: 'Reklamy na místní inventář',
    FREE_LOCAL_LISTINGS: 'Bezplatné místní zápisy',
  },
};

const TEXTS = { en, cs } as const;
export type VerdictTexts = typeof en;

export function verdictTexts(lang: Lang): VerdictTexts {
  return textsFor(TEXTS, lang);
}
