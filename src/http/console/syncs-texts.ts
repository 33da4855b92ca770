import { type Lang, plural } from '../../core/text/local-text.js';
import type { SyncJob, SyncOutcome } from '../../services/catalog/catalog-service.js';

/** The sync history page's texts (docs/console.md#sync-history), in English and Czech. */
const en = {
  title: 'Sync history',
  intro:
    'The last runs of each job, newest first, as the store keeps them (50 per job; with several instances, the whole group’s). Each report can be downloaded whole, with the first examples of every code.',
  jobs: { 'sync-catalog': 'Full catalog sync', 'sync-stock': 'Stock sync' } satisfies Record<SyncJob, string>,
  outcomes: {
    published: 'published',
    unchanged: 'unchanged',
    refused: 'refused',
    failed: 'failed',
    skipped: 'skipped',
  } satisfies Record<SyncOutcome, string>,
  columns: {
    finished: 'Finished',
    outcome: 'Outcome',
    duration: 'Duration',
    products: 'Products',
    units: 'Units',
    articles: 'Articles',
    priceListRows: 'Price-list rows',
    stockRows: 'Stock rows',
    changedProducts: 'Products changed',
    enrichmentRows: 'Sheet rows',
    rejected: 'Rejected',
    unmatched: 'Unmatched',
    report: 'Report',
  },
  download: 'JSON',
  downloadLabel: (finished: string) => `Download the report of the run finished ${finished}`,
  noRuns: 'No runs yet.',
  storeDown:
    'The store does not answer, and the history is kept there. This page reloads by itself; feeds are still served from memory.',
  durationChart: 'Duration',
  itemsChart: { 'sync-catalog': 'Products', 'sync-stock': 'Stock rows read' } satisfies Record<SyncJob, string>,
  runs: (count: number) => plural('en', count, { one: 'the last run', other: 'the last # runs' }),
  failedRuns: (count: number) => plural('en', count, { one: '# failed', other: '# failed' }),
  trend: { up: 'rising', down: 'falling', flat: 'steady' },
  summary: (what: string, runs: string, min: string, max: string, last: string, trend: string) =>
    `${what} over ${runs}: from ${min} to ${max}, latest ${last}, ${trend}`,
  pointFailed: 'failed',
  noValue: 'no value',
};

type SyncsTexts = typeof en;

const cs: SyncsTexts = {
  title: 'Historie synchronizací',
  intro:
    'Poslední běhy každé úlohy od nejnovějšího, jak je uchovává úložiště (50 na úlohu; při více instancích za celou skupinu). Každou zprávu lze stáhnout celou, s prvními příklady každého kódu.',
  jobs: { 'sync-catalog': 'Úplná synchronizace katalogu', 'sync-stock': 'Synchronizace skladu' },
  outcomes: {
    published: 'zveřejněno',
    unchanged: 'beze změny',
    refused: 'odmítnuto',
    failed: 'selhalo',
    skipped: 'přeskočeno',
  },
  columns: {
    finished: 'Dokončeno',
    outcome: 'Výsledek',
    duration: 'Trvání',
    products: 'Produkty',
    units: 'Provozovny',
    articles: 'Artikly',
    priceListRows: 'Řádky ceníků',
    stockRows: 'Řádky skladu',
    changedProducts: 'Změněné produkty',
    enrichmentRows: 'Řádky tabulky',
    rejected: 'Odmítnuté',
    unmatched: 'Nespárované',
    report: 'Zpráva',
  },
  download: 'JSON',
  downloadLabel: (finished) => `Stáhnout zprávu běhu dokončeného ${finished}`,
  noRuns: 'Zatím žádné běhy.',
  storeDown: 'Úložiště neodpovídá a historie je uložena v něm. Stránka se sama znovu načte; feedy se dál podávají z paměti.',
  durationChart: 'Trvání',
  itemsChart: { 'sync-catalog': 'Produkty', 'sync-stock': 'Přečtené řádky skladu' },
  runs: (count) => plural('cs', count, { one: 'poslední běh', few: 'poslední # běhy', other: 'posledních # běhů' }),
  failedRuns: (count) => plural('cs', count, { one: '# selhal', few: '# selhaly', other: '# selhalo' }),
  trend: { up: 'roste', down: 'klesá', flat: 'beze změny' },
  summary: (what, runs, min, max, last, trend) => `${what} za ${runs}: od ${min} do ${max}, naposledy ${last}, ${trend}`,
  pointFailed: 'selhalo',
  noValue: 'bez hodnoty',
};

export const SYNCS_TEXTS: { readonly en: SyncsTexts; readonly cs: SyncsTexts } = { en, cs };
export type { SyncsTexts };

/** For tests and pages that need a language's texts by code. */
export function syncsTexts(lang: Lang): SyncsTexts {
  return lang === 'cs' ? cs : en;
}
