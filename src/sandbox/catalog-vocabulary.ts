/**
 * Word lists of the generated demo catalog: Czech names with diacritics, as a Czech shop's POS holds
 * them. Edit freely, but remember that changing a list changes the data of every seed.
 */

export interface ArticleCategory {
  /** Prefix of `internalIdentifier`, e.g. KAV-1001. Shoptet codes allow A-Z, 0-9, `-`. */
  readonly prefix: string;
  /** Relative share of articles in this category. */
  readonly weight: number;
  readonly vatRate: 0 | 12 | 21;
  /** Sold by weight: measure unit `kg`, fractional stock and counts. */
  readonly byWeight: boolean;
  /** Services are not stock items (`isStockItem: false`) and have no stock rows. */
  readonly service: boolean;
  readonly nouns: readonly string[];
  readonly variants: readonly string[];
  readonly sizes: readonly string[];
  /** Gross price range (per kg when sold by weight). */
  readonly minPrice: number;
  readonly maxPrice: number;
}

export const ARTICLE_CATEGORIES: readonly ArticleCategory[] = [
  {
    prefix: 'KAV',
    weight: 12,
    vatRate: 12,
    byWeight: false,
    service: false,
    nouns: ['Káva zrnková', 'Káva mletá', 'Espresso směs', 'Káva instantní', 'Kávové kapsle'],
    variants: ['Brazílie Santos', 'Kolumbie Supremo', 'Etiopie Yirgacheffe', 'Guatemala', 'Itálie', 'Keňa AA', 'bez kofeinu'],
    sizes: ['250 g', '500 g', '1 kg', '10 ks'],
    minPrice: 89,
    maxPrice: 589,
  },
  {
    prefix: 'CAJ',
    weight: 8,
    vatRate: 12,
    byWeight: false,
    service: false,
    nouns: ['Čaj zelený', 'Čaj černý', 'Čaj ovocný', 'Bylinný čaj', 'Čaj bílý'],
    variants: ['Sencha', 'Earl Grey', 'Šípek s ibiškem', 'Máta peprná', 'Heřmánek', 'Lipový květ', 'Rooibos'],
    sizes: ['20 sáčků', '50 g', '100 g'],
    minPrice: 39,
    maxPrice: 259,
  },
  {
    prefix: 'PEC',
    weight: 10,
    vatRate: 12,
    byWeight: false,
    service: false,
    nouns: ['Koláč', 'Croissant', 'Buchta', 'Štrúdl', 'Chléb', 'Rohlík', 'Vánočka'],
    variants: ['tvarohový', 'máslový', 'povidlový', 'jablečný', 'žitný', 'celozrnný', 'makový'],
    sizes: ['1 ks', '80 g', '500 g', '1 kg'],
    minPrice: 9,
    maxPrice: 119,
  },
  {
    prefix: 'NAP',
    weight: 10,
    vatRate: 21,
    byWeight: false,
    service: false,
    nouns: ['Minerální voda', 'Limonáda', 'Džus', 'Ledový čaj', 'Sirup'],
    variants: ['perlivá', 'neperlivá', 'pomeranč', 'broskev', 'zázvor s citronem', 'bezový květ', 'jahoda'],
    sizes: ['0,33 l', '0,5 l', '1,5 l', '0,7 l'],
    minPrice: 14,
    maxPrice: 149,
  },
  {
    prefix: 'ALK',
    weight: 7,
    vatRate: 21,
    byWeight: false,
    service: false,
    nouns: ['Pivo ležák', 'Víno bílé', 'Víno červené', 'Slivovice', 'Medovina'],
    variants: ['Moravské', 'Pálava', 'Frankovka', '12°', 'Ryzlink rýnský', 'Müller-Thurgau', 'pozdní sběr'],
    sizes: ['0,5 l', '0,75 l', '0,7 l'],
    minPrice: 29,
    maxPrice: 899,
  },
  {
    prefix: 'OVO',
    weight: 8,
    vatRate: 12,
    byWeight: true,
    service: false,
    nouns: ['Jablka', 'Hrušky', 'Rajčata', 'Brambory', 'Švestky', 'Mrkev', 'Cibule', 'Okurky'],
    variants: ['Golden Delicious', 'česká', 'cherry', 'rané', 'bio', 'z Polabí', 'Jonagold'],
    sizes: [],
    minPrice: 15,
    maxPrice: 129,
  },
  {
    prefix: 'SYR',
    weight: 7,
    vatRate: 12,
    byWeight: true,
    service: false,
    nouns: ['Sýr Eidam', 'Sýr Gouda', 'Šunka dušená', 'Salám Vysočina', 'Hermelín', 'Tvarůžky'],
    variants: ['30 %', '45 %', 'uzený', 'výběrový', 'krájený', 'staročeský', 'pikantní'],
    sizes: [],
    minPrice: 139,
    maxPrice: 549,
  },
  {
    prefix: 'CUK',
    weight: 10,
    vatRate: 12,
    byWeight: false,
    service: false,
    nouns: ['Čokoláda hořká', 'Bonbóny', 'Oplatky', 'Perník', 'Marcipán', 'Lízátko'],
    variants: ['70 %', 'mléčná', 'lískooříškové', 's marmeládou', 'kokosové', 'višňové', 'ovocné'],
    sizes: ['50 g', '100 g', '200 g'],
    minPrice: 12,
    maxPrice: 189,
  },
  {
    prefix: 'KOS',
    weight: 8,
    vatRate: 21,
    byWeight: false,
    service: false,
    nouns: ['Mýdlo', 'Šampon', 'Krém na ruce', 'Zubní pasta', 'Sprchový gel'],
    variants: ['levandulové', 'heřmánkový', 'měsíčkový', 'bylinná', 'citrusový', 's olivovým olejem'],
    sizes: ['75 ml', '100 ml', '250 ml', '500 ml'],
    minPrice: 29,
    maxPrice: 329,
  },
  {
    prefix: 'DOM',
    weight: 8,
    vatRate: 21,
    byWeight: false,
    service: false,
    nouns: ['Hrnek', 'Konvička', 'Sklenice', 'Utěrka', 'Svíčka', 'Prkénko'],
    variants: ['keramický', 'smaltovaná', 'lněná', 'vonná', 'dubové', 'modrotisk'],
    sizes: ['0,3 l', '1 l', '1 ks', '2 ks'],
    minPrice: 49,
    maxPrice: 799,
  },
  {
    prefix: 'KNI',
    weight: 4,
    vatRate: 0,
    byWeight: false,
    service: false,
    nouns: ['Kniha', 'Kuchařka', 'Průvodce', 'Atlas'],
    variants: ['Česká kuchyně', 'Praha', 'Šumava', 'Moravské vinařství', 'Krkonoše', 'Houby'],
    sizes: [''],
    minPrice: 199,
    maxPrice: 799,
  },
  {
    prefix: 'SLU',
    weight: 3,
    vatRate: 21,
    byWeight: false,
    service: true,
    nouns: ['Mletí kávy', 'Balení dárku', 'Rozvoz', 'Degustace', 'Zálohovaná láhev'],
    variants: ['', 'expres', 'po Praze', 'skupinová'],
    sizes: [''],
    minPrice: 10,
    maxPrice: 390,
  },
];

/**
 * Names that need escaping in XML and quoting in CSV (`&`, `<`, `>`, `"`, `'`). A few percent of
 * articles take one of these, so every renderer downstream is exercised.
 */
export const TRICKY_NAMES: readonly string[] = [
  'Tom & Jerry – dětský čaj',
  'Sada "Ranní káva" & hrnek',
  'Dárkový koš <Vánoce>',
  "Rock'n'roll bonbóny",
  "Čaj 'Babiččin' > 20 sáčků",
  'Sýr "Eidam" 30 % <krájený>',
  'Káva & čaj <mix> "Duo"',
  'Pivo 12° "Řezané" & preclík',
];

export const UNIT_NAMES: readonly string[] = [
  'Prodejna Praha – Vinohrady',
  'Pobočka Brno',
  'Prodejna Ostrava – Poruba',
  'Pobočka Plzeň',
  'Kavárna Olomouc',
  'Prodejna České Budějovice',
  'Pobočka Hradec Králové',
  'Prodejna Liberec',
  'Pobočka Ústí nad Labem',
  'Prodejna Pardubice',
  'Pobočka Zlín',
  'Prodejna Jihlava',
  'Pobočka Karlovy Vary',
  'Prodejna Třebíč – Náměstí',
  'Pobočka Kroměříž',
];

export const CASHIER_NAMES: readonly string[] = [
  'Jana Dvořáková',
  'Petr Novák',
  'Lucie Černá',
  'Tomáš Procházka',
  'Kateřina Veselá',
  'Jiří Horák',
  'Markéta Kučerová',
  'Ondřej Šťastný',
];

export const SUPPLIER_NAMES: readonly string[] = [
  'Velkoobchod Novák s.r.o.',
  'Pražírna Šťastný a syn',
  'Pekárna U Mlýna',
  'Moravské vinařství Žerotín',
  'Zelenina Polabí a.s.',
];

export const AVAILABILITY_IN_STOCK: readonly string[] = ['Skladem', 'Skladem na prodejně', 'Ihned k odběru'];
export const AVAILABILITY_OUT_OF_STOCK: readonly string[] = ['Na dotaz', 'Vyprodáno', 'Do 3 dnů', 'Dočasně nedostupné'];
