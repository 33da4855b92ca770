import { type Lang, plural } from '../../core/text/local-text.js';

/**
 * Texts of the overview page (`/`): the feeds, the syncs and the catalog in use. Sentences the services
 * write (why no catalog is served yet, the operator's warnings) come in English from them and are shown
 * as they are; the warnings page (`/warnings`) has them in both languages.
 */
export interface OverviewTexts {
  readonly title: string;
  readonly searchLabel: string;
  readonly searchButton: string;
  readonly searchPlaceholder: string;
  readonly pos: string;
  /** Which POS is read, as `describePos` (src/app/catalog-parts.ts) says it in English, in the reader's language. */
  posLine(pos: string): string;
  readonly toFix: string;
  readonly job: string;
  readonly lastOutcome: string;
  readonly finished: string;
  readonly took: string;
  readonly nextRun: string;
  readonly detail: string;
  readonly notRunYet: string;
  readonly source: string;
  version(version: string, generatedAt: string, products: number, units: number, currency: string): string;
  readonly rowsReported: string;
  readonly allUnits: string;
  readonly feed: string;
  readonly format: string;
  readonly url: string;
  readonly items: string;
  readonly leftOut: string;
  readonly channelReady: string;
  readonly none: string;
  readonly notRendered: string;
  notRenderedTitle(products: number): string;
  leftOutSummary(count: number): string;
  readonly example: string;
  readonly excelCsv: string;
  readonly excelCsvTitle: string;
  readonly spreadsheets: string;
  readonly machineReadable: string;
  readonly documentation: string;
  waiting(sentence: string): string;
  notServed(version: string, products: number, source: string, configured: string): string;
  storeDown(since: string, reason: string, docsHref: string): string;
  readonly groupLeader: (instance: string) => string;
  readonly groupFollower: (instance: string, leader: string) => string;
  readonly leaderUnknown: string;
  readonly groupInStep: string;
  groupBehind(behind: number, version: string): string;
  groupInbox(depth: number, pending: number, claimed: number): string;
  groupDocs(href: string): string;
  webhooks(applied: string, refetched: string, dropped: string, pending: number, last: string): string;
  readonly webhooksApplied: string;
  readonly webhooksRefetched: string;
  webhooksDropped(count: number): string;
  readonly noSaleYet: string;
  readonly noSheet: string;
  readonly noSheetInUse: string;
  sheetInUse(name: string, read: string, rows: number, groups: number, key: string): string;
  sheetMatch(matched: number, rows: number, unmatched: number, ambiguous: number, duplicates: number, enriched: number): string;
  sheetLine(source: string, inUse: string, match: string): string;
  sheetFailed(code: string, message: string): string;
  ignoredCells(count: number): string;
  readonly row: string;
  readonly column: string;
  readonly complete: (count: number) => string;
  readonly completeOf: (complete: number, items: number) => string;
  readonly without: (count: number, name: string) => string;
  readonly exampleWithout: (id: string, names: string) => string;
  readonly warningsLink: (count: number) => string;
  /** A sync's outcome in words (its code links to report-codes.md). */
  readonly outcomes: Readonly<Record<'published' | 'unchanged' | 'skipped' | 'refused' | 'failed', string>>;
  jobName(job: string): string;
}

const en: OverviewTexts = {
  title: 'Feeds and syncs',
  searchLabel: 'Find a product',
  searchButton: 'Search',
  searchPlaceholder: 'name, EAN, PLU or code',
  pos: 'POS',
  posLine: (pos) => pos,
  toFix: 'To fix',
  job: 'job',
  lastOutcome: 'last outcome',
  finished: 'finished',
  took: 'took',
  nextRun: 'next run',
  detail: 'detail',
  notRunYet: 'not run yet',
  source: 'Source',
  version: (version, generatedAt, products, units, currency) =>
    `Version <code>${version}</code> generated ${generatedAt} · ${products} products · ${units} units · ${currency}`,
  rowsReported: 'Rows the last full sync reported',
  allUnits: 'All units (stock summed)',
  feed: 'feed',
  format: 'format',
  url: 'URL',
  items: 'items',
  leftOut: 'left out',
  channelReady: 'channel-ready',
  none: 'none',
  notRendered: 'not rendered yet',
  notRenderedTitle: (products) => `not rendered yet for this version; ${products} products in the view`,
  leftOutSummary: (count) => `${count} left out`,
  example: 'e.g.',
  excelCsv: 'Excel CSV (Czech locale)',
  excelCsvTitle: 'Czech locale: ; separator, decimal comma',
  spreadsheets:
    'Spreadsheets: <strong>Catalog (Excel workbook)</strong>, <code>products.xlsx</code>, opens right in Excel, LibreOffice and Google Sheets in any language or region: codes and EANs stay text (leading zeros kept), prices and stock are numbers. The <strong>Excel CSV</strong> (<code>products.csv?profile=excel</code>) assumes a <strong>Czech</strong> locale (<code>;</code> between fields, decimal comma); opened with other regional settings, prices may become text and <code>76,131</code> kg the number 76131. Programs take <code>products.csv</code> (RFC 4180).',
  machineReadable: 'Machine-readable',
  documentation: 'documentation',
  waiting: (sentence) => `${sentence} Feeds answer 503 until a catalog is built. This page refreshes itself.`,
  notServed: (version, products, source, configured) =>
    `The stored catalog (version <code>${version}</code>, ${products} products) came from ${source}, not from the configured POS: it is not served, and the first catalog from ${configured} replaces it.`,
  storeDown: (since, reason, href) =>
    `The store does not answer since ${since} (${reason}): feeds are served from memory, sale webhooks answer 503 (the POS delivers them again) and syncs wait until it is back. See <a href="${href}">failure modes</a>.`,
  groupLeader: (instance) =>
    `This instance (<code>${instance}</code>) leads the group: it runs the scheduled syncs and stores the catalog.`,
  groupFollower: (instance, leader) => `This instance (<code>${instance}</code>) follows; the leader is <code>${leader}</code>.`,
  leaderUnknown: 'unknown (none holds the lease now)',
  groupInStep: "It serves the group's current version.",
  groupBehind: (behind, version) => `It is ${behind} change(s) behind the group's version <code>${version}</code>.`,
  groupInbox: (depth, pending, claimed) =>
    ` Shared webhook inbox: ${depth} event(s), ${pending} handed out and not completed; ${claimed} taken over by this instance.`,
  groupDocs: (href) => `See <a href="${href}">running several instances</a>.`,
  webhooks: (applied, refetched, dropped, pending, last) =>
    `Sale webhooks since start: ${applied} · ${refetched}${dropped} · ${pending} waiting · last sale served: ${last}`,
  webhooksApplied: 'applied from their movements',
  webhooksRefetched: 'shown by re-reading the stock',
  webhooksDropped: () => 'left to the stock sync',
  noSaleYet: 'none yet',
  noSheet: 'No enrichment sheet (ENRICHMENT_SOURCE): feeds carry what the POS has.',
  noSheetInUse: 'no sheet in use yet',
  sheetInUse: (name, read, rows, groups, key) =>
    `${name} read ${read}: ${rows} product rows, ${groups} group rows, key column <code>${key}</code>`,
  sheetMatch: (matched, rows, unmatched, ambiguous, duplicates, enriched) =>
    ` Last full sync: ${matched} of ${rows} product rows matched (${unmatched} unmatched, ${ambiguous} ambiguous, ${duplicates} duplicate), ${enriched} products enriched.`,
  sheetLine: (source, inUse, match) => `Enrichment sheet ${source}: ${inUse}.${match}`,
  sheetFailed: (code, message) => `Last read failed (${code}): ${message}`,
  ignoredCells: (count) => `${count} cells or rows ignored`,
  row: 'row',
  column: 'column',
  complete: (count) => `${count} complete`,
  completeOf: (complete, items) => `${complete} of ${items} complete`,
  without: (count, name) => `${count} without ${name}`,
  exampleWithout: (id, names) => `e.g. ${id}: no ${names}`,
  warningsLink: (count) => `All warnings and what to do (${count})`,
  outcomes: { published: 'published', unchanged: 'unchanged', skipped: 'skipped', refused: 'refused', failed: 'failed' },
  jobName: (job) => job,
};

const cs: OverviewTexts = {
  title: 'Feedy a synchronizace',
  searchLabel: 'Najít produkt',
  searchButton: 'Hledat',
  searchPlaceholder: 'název, EAN, PLU nebo kód',
  pos: 'Pokladna',
  posLine: (pos) => {
    const sandbox = /^built-in sandbox at (\S+) \(POS_BASE_URL is unset(; POS_API_KEY is ignored in sandbox mode)?\)$/.exec(pos);
    if (sandbox === null) return pos;
    const ignored = sandbox[2] === undefined ? '' : '; POS_API_KEY se v režimu sandboxu nepoužívá';
    return `vestavěná zkušební pokladna (sandbox) na ${sandbox[1]} (POS_BASE_URL není nastavena${ignored})`;
  },
  toFix: 'K opravě',
  job: 'úloha',
  lastOutcome: 'poslední výsledek',
  finished: 'dokončeno',
  took: 'trvalo',
  nextRun: 'další běh',
  detail: 'podrobnosti',
  notRunYet: 'ještě neběžela',
  source: 'Zdroj',
  version: (version, generatedAt, products, units, currency) =>
    `Verze <code>${version}</code> vytvořená ${generatedAt} · ${plural('cs', products, { one: '# produkt', few: '# produkty', other: '# produktů' })} · ${plural('cs', units, { one: '# prodejna', few: '# prodejny', other: '# prodejen' })} · ${currency}`,
  rowsReported: 'Řádky, které hlásila poslední úplná synchronizace',
  allUnits: 'Všechny prodejny (sklad sečtený)',
  feed: 'feed',
  format: 'formát',
  url: 'URL',
  items: 'položky',
  leftOut: 'vynecháno',
  channelReady: 'připraveno pro kanál',
  none: 'nic',
  notRendered: 'zatím nevytvořen',
  notRenderedTitle: (products) =>
    `pro tuto verzi zatím nevytvořen; v pohledu je ${plural('cs', products, { one: '# produkt', few: '# produkty', other: '# produktů' })}`,
  leftOutSummary: (count) => plural('cs', count, { one: '# vynechaná', few: '# vynechané', other: '# vynechaných' }),
  example: 'např.',
  excelCsv: 'CSV pro Excel (české prostředí)',
  excelCsvTitle: 'České prostředí: oddělovač ;, desetinná čárka',
  spreadsheets:
    'Tabulky: <strong>Katalog (sešit Excelu)</strong>, <code>products.xlsx</code>, se správně otevře v Excelu, LibreOffice i Tabulkách Google v jakémkoli jazyce a regionu: kódy a EANy zůstanou textem (i s úvodními nulami), ceny a sklad jsou čísla. <strong>CSV pro Excel</strong> (<code>products.csv?profile=excel</code>) počítá s <strong>českým</strong> prostředím (<code>;</code> mezi poli, desetinná čárka); v jiném regionálním nastavení se ceny mohou stát textem a <code>76,131</code> kg číslem 76131. Programy berou <code>products.csv</code> (RFC 4180).',
  machineReadable: 'Pro programy',
  documentation: 'dokumentace',
  waiting: (sentence) => `${sentence} Dokud nevznikne katalog, feedy odpovídají 503. Stránka se sama obnovuje.`,
  notServed: (version, products, source, configured) =>
    `Uložený katalog (verze <code>${version}</code>, ${plural('cs', products, { one: '# produkt', few: '# produkty', other: '# produktů' })}) pochází z ${source}, ne z nastavené pokladny: neposkytuje se a nahradí ho první katalog z ${configured}.`,
  storeDown: (since, reason, href) =>
    `Úložiště neodpovídá od ${since} (${reason}): feedy se posílají z paměti, webhooky prodejů dostávají 503 (pokladna je pošle znovu) a synchronizace čekají, až bude zpět. Viz <a href="${href}">poruchy a jejich řešení</a>.`,
  groupLeader: (instance) =>
    `Tato instance (<code>${instance}</code>) vede skupinu: spouští plánované synchronizace a ukládá katalog.`,
  groupFollower: (instance, leader) => `Tato instance (<code>${instance}</code>) následuje; vedoucí je <code>${leader}</code>.`,
  leaderUnknown: 'neznámá (zámek teď nikdo nedrží)',
  groupInStep: 'Poskytuje aktuální verzi skupiny.',
  groupBehind: (behind, version) =>
    `Za verzí skupiny <code>${version}</code> zaostává o ${plural('cs', behind, { one: '# změnu', few: '# změny', other: '# změn' })}.`,
  groupInbox: (depth, pending, claimed) =>
    ` Sdílená schránka webhooků: ${plural('cs', depth, { one: '# událost', few: '# události', other: '# událostí' })}, ${pending} předaných a nedokončených; ${claimed} převzala tato instance.`,
  groupDocs: (href) => `Viz <a href="${href}">provoz více instancí</a>.`,
  webhooks: (applied, refetched, dropped, pending, last) =>
    `Webhooky prodejů od startu: ${applied} · ${refetched}${dropped} · čeká ${pending} · poslední promítnutý prodej: ${last}`,
  webhooksApplied: 'promítnuto z pohybů',
  webhooksRefetched: 'promítnuto novým načtením skladu',
  webhooksDropped: () => 'ponecháno na synchronizaci skladu',
  noSaleYet: 'zatím žádný',
  noSheet: 'Bez obohacující tabulky (ENRICHMENT_SOURCE): feedy nesou to, co má pokladna.',
  noSheetInUse: 'zatím se žádná tabulka nepoužívá',
  sheetInUse: (name, read, rows, groups, key) =>
    `${name} načtena ${read}: ${plural('cs', rows, { one: '# řádek produktu', few: '# řádky produktů', other: '# řádků produktů' })}, ${plural('cs', groups, { one: '# řádek skupiny', few: '# řádky skupin', other: '# řádků skupin' })}, klíčový sloupec <code>${key}</code>`,
  sheetMatch: (matched, rows, unmatched, ambiguous, duplicates, enriched) =>
    ` Poslední úplná synchronizace: spárováno ${matched} z ${rows} řádků produktů (${unmatched} nespárováno, ${ambiguous} nejednoznačných, ${duplicates} duplicitních), obohaceno ${plural('cs', enriched, { one: '# produkt', few: '# produkty', other: '# produktů' })}.`,
  sheetLine: (source, inUse, match) => `Obohacující tabulka ${source}: ${inUse}.${match}`,
  sheetFailed: (code, message) => `Poslední načtení selhalo (${code}): ${message}`,
  ignoredCells: (count) =>
    plural('cs', count, {
      one: '# buňka nebo řádek vynechán',
      few: '# buňky nebo řádky vynechány',
      other: '# buněk nebo řádků vynecháno',
    }),
  row: 'řádek',
  column: 'sloupec',
  complete: (count) => plural('cs', count, { one: '# úplná', few: '# úplné', other: '# úplných' }),
  completeOf: (complete, items) => `${complete} z ${items} úplných`,
  without: (count, name) => `${count} bez ${name}`,
  exampleWithout: (id, names) => `např. ${id}: chybí ${names}`,
  warningsLink: (count) => `Všechna upozornění a co s nimi dělat (${count})`,
  outcomes: {
    published: 'zveřejněno',
    unchanged: 'beze změny',
    skipped: 'přeskočeno',
    refused: 'odmítnuto',
    failed: 'selhalo',
  },
  jobName: (job) => (job === 'sync-catalog' ? 'úplná synchronizace' : job === 'sync-stock' ? 'synchronizace skladu' : job),
};

export function overviewTexts(lang: Lang): OverviewTexts {
  return lang === 'cs' ? cs : en;
}
