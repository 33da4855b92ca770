import { writeFileSync } from 'node:fs';
import { ARTICLE_CATEGORIES } from '../src/sandbox/catalog-vocabulary.js';
import { createRandom, hash32 } from '../src/sandbox/prng.js';
import { createSandboxCatalog, type SandboxArticle } from '../src/sandbox/sandbox-catalog.js';

/**
 * A marketer's enrichment sheet (docs/enrichment.md) for the sandbox's catalog, as Czech Excel saves it
 * ("CSV UTF-8 (oddělený čárkami)": BOM, `;`, CRLF, fields quoted when they hold `;`, `"` or a line break),
 * keyed by `id` (the sandbox's article localIds, derived from the same seed, units and articles the sandbox
 * serves). Product rows carry a title (~60 characters with Czech diacritics), a description (~300), brand,
 * category path, Google's numeric category, Heureka's CATEGORYTEXT, two additional image URLs and
 * custom_label_0; one `group:{id}` row per article group carries the values a group may set. Deterministic
 * in (seed, articles, rows, titlePrefix). Used by `bench/full-sync.ts --enrichment ROWS` and
 * `bench/event-loop.ts --enrichment ROWS` (which changes the sheet with `titlePrefix`).
 */

export interface EnrichmentSheetOptions {
  /** The sandbox's seed, units and article count: the catalog the sheet describes. */
  readonly seed: number;
  readonly units: number;
  readonly articles: number;
  /** Product rows wanted; at most `articles`. */
  readonly rows: number;
  /**
   * Put before every product row's title (within its 150 characters): the marketer's next version of the
   * sheet, every product's title changed. None by default.
   */
  readonly titlePrefix?: string;
}

/** What the sheet holds, and what applying it to the sandbox's catalog must report. */
export interface EnrichmentSheetSummary {
  readonly path: string;
  readonly bytes: number;
  /** Product rows written. */
  readonly rows: number;
  /** Group rows written. */
  readonly groups: number;
  /** Products of the catalog (articles the POS sells: `isSalesItem` not `false`). */
  readonly products: number;
  /** Rows naming a product: every row, unless more rows were asked than the catalog has products. */
  readonly expectedMatched: number;
  /** Rows naming an article that is no product (`isSalesItem: false`), written only past the products. */
  readonly expectedUnmatched: number;
  readonly expectedGroupsUnmatched: number;
  /** Products with a row of their own or in a group with a group row. */
  readonly expectedEnrichedProducts: number;
}

const HEADER = [
  'id',
  'title',
  'description',
  'brand',
  'category',
  'google_product_category',
  'heureka_category',
  'additional_image_link',
  'custom_label_0',
] as const;

/** Per sandbox category (by its `prefix`): the shop's path, Google's id, Heureka's path, brands. */
const TAXONOMY: Record<string, { shop: string; google: number; heureka: string; brands: readonly string[] }> = {
  KAV: {
    shop: 'Potraviny > Káva a čaj > Káva',
    google: 1868,
    heureka: 'Heureka.cz | Jídlo a nápoje | Nápoje | Káva',
    brands: ['Pražírna Ďáblice', 'Café Kolibřík', 'Lavazza', 'Doubleshot'],
  },
  CAJ: {
    shop: 'Potraviny > Káva a čaj > Čaj',
    google: 2073,
    heureka: 'Heureka.cz | Jídlo a nápoje | Nápoje | Čaj',
    brands: ['Čajovna U Žluté růže', 'Sonnentor', 'Teekanne', 'Oxalis'],
  },
  PEC: {
    shop: 'Potraviny > Pečivo > Sladké pečivo',
    google: 1876,
    heureka: 'Heureka.cz | Jídlo a nápoje | Pečivo',
    brands: ['Pekárna Šťastný', 'Odkolek', 'Penam', 'Pekařství Bělohlávek'],
  },
  NAP: {
    shop: 'Potraviny > Nápoje > Nealkoholické nápoje',
    google: 413,
    heureka: 'Heureka.cz | Jídlo a nápoje | Nápoje | Nealkoholické nápoje',
    brands: ['Mattoni', 'Kofola', 'Poděbradka', 'Rauch'],
  },
  ALK: {
    shop: 'Potraviny > Nápoje > Alkoholické nápoje',
    google: 499_676,
    heureka: 'Heureka.cz | Jídlo a nápoje | Nápoje | Alkoholické nápoje',
    brands: ['Pivovar Chotěboř', 'Rudolf Jelínek', 'Znovín Znojmo', 'Medovina Křečovice'],
  },
  OVO: {
    shop: 'Potraviny > Ovoce a zelenina',
    google: 430,
    heureka: 'Heureka.cz | Jídlo a nápoje | Ovoce a zelenina',
    brands: ['Farma Květná', 'Zelinářství Štěpánek', 'Bio Nebanice', 'Sady Ovčáry'],
  },
  SYR: {
    shop: 'Potraviny > Mléčné výrobky > Sýry a uzeniny',
    google: 429,
    heureka: 'Heureka.cz | Jídlo a nápoje | Mléčné výrobky | Sýry',
    brands: ['Madeta', 'Olma', 'Kostelecké uzeniny', 'Tvarůžky Loštice'],
  },
  CUK: {
    shop: 'Potraviny > Sladkosti > Čokolády a bonbóny',
    google: 4748,
    heureka: 'Heureka.cz | Jídlo a nápoje | Sladkosti | Čokolády',
    brands: ['Orion', 'Carla', 'Kávoviny Marcipán', 'Perníkárna Pardubice'],
  },
  KOS: {
    shop: 'Drogerie > Kosmetika > Péče o tělo',
    google: 473,
    heureka: 'Heureka.cz | Kosmetika a zdraví | Kosmetika | Péče o tělo',
    brands: ['Ryor', 'Manufaktura', 'Dermacol', 'Bohemia Herbs'],
  },
  DOM: {
    shop: 'Domácnost > Kuchyně > Nádobí',
    google: 630,
    heureka: 'Heureka.cz | Dům a zahrada | Domácnost | Kuchyňské potřeby',
    brands: ['Český porcelán Dubí', 'Tescoma', 'Sklárna Květná', 'Ruční výroba Vysočina'],
  },
  KNI: {
    shop: 'Knihy a média > Knihy',
    google: 784,
    heureka: 'Heureka.cz | Knihy a hudba | Knihy',
    brands: ['Albatros', 'Euromedia', 'Host', 'Argo'],
  },
  SLU: {
    shop: 'Služby > Služby prodejny',
    google: 5181,
    heureka: 'Heureka.cz | Služby',
    brands: ['Naše prodejna'],
  },
};

const TITLE_PHRASES = [
  'čerstvě z naší prodejny',
  'poctivá česká výroba',
  'oblíbená klasika zákazníků',
  'výběrová kvalita za skvělou cenu',
  'ideální jako dárek pro blízké',
  'šetrné k přírodě, bez zbytečných obalů',
  'novinka letošní sezóny',
  'ruční zpracování v malé dílně',
];

const SENTENCES = [
  'Pečlivě vybraný produkt od ověřeného dodavatele, kterého známe osobně a pravidelně navštěvujeme.',
  'Skladujte v suchu a chladu, chraňte před přímým slunečním zářením; po otevření spotřebujte do 14 dnů.',
  'Vyrobeno v České republice s důrazem na kvalitu surovin, tradiční postupy a šetrnost k životnímu prostředí.',
  'Zákazníci oceňují především vyváženou chuť, příjemnou vůni a poměr ceny a kvality.',
  'Hodí se ke každodennímu použití i jako pozornost pro přátele, kolegy či rodinu; balíme zdarma.',
  'Označení „Bio“ a certifikát „Klasa“ zaručují původ surovin a kontrolu celé výroby.',
  'Objednávky přijaté do 14:00 expedujeme ještě týž den, osobní odběr je možný na všech prodejnách.',
  'Složení: viz etiketa na obalu. Může obsahovat stopy lepku, ořechů, sezamu a mléka.',
  'Při vrácení do 30 dnů vám vrátíme peníze bez udání důvodu, stačí účtenka nebo číslo objednávky.',
  'Tip naší prodavačky: vyzkoušejte v kombinaci s dalšími výrobky ze stejné řady, chutě se skvěle doplňují.',
];

const LABELS = ['bestseller', 'novinka', 'výprodej', 'sezóna-vánoce', 'marže-vysoká', 'marže-nízká', 'dárek', 'lokální'];

const IMAGE_HOST = 'https://cdn.obchod-example.cz/foto';

/** Excel quotes a field holding the delimiter, a quote or a line break, and doubles its quotes. */
function csvField(value: string): string {
  return /[;"\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

function categoryOf(article: SandboxArticle): string {
  if (article.localGroupId !== undefined) {
    const groupNumber = Number(article.localGroupId.slice(2));
    const category = ARTICLE_CATEGORIES[Math.floor(groupNumber / 10) - 1];
    if (category !== undefined) return category.prefix;
  }
  return article.internalIdentifier?.split('-')[0] ?? 'SLU';
}

function taxonomyOf(prefix: string): (typeof TAXONOMY)[string] {
  const taxonomy = TAXONOMY[prefix] ?? TAXONOMY['SLU'];
  if (taxonomy === undefined) throw new Error(`no taxonomy for ${prefix}`);
  return taxonomy;
}

/** ~300 characters of sentences, sometimes in two paragraphs (a line break in the cell). */
function description(random: ReturnType<typeof createRandom>, name: string, target: number): string {
  let text = `${name}.`;
  while (text.length < target - 50) {
    const sentence = random.pick(SENTENCES);
    text += random.chance(0.08) ? `\n${sentence}` : ` ${sentence}`;
  }
  return text;
}

export function writeEnrichmentSheet(path: string, options: EnrichmentSheetOptions): EnrichmentSheetSummary {
  const { seed, units, articles } = options;
  const rows = Math.min(options.rows, articles);
  const catalog = createSandboxCatalog({ seed, units, articles });

  // First pass: which articles are products, and the article groups (and whether they hold a product).
  const isProduct = new Uint8Array(articles);
  const groupHasProduct = new Map<string, boolean>();
  let products = 0;
  for (let index = 0; index < articles; index++) {
    const article = catalog.articleAt(index);
    const product = article.isSalesItem !== false;
    if (product) {
      isProduct[index] = 1;
      products += 1;
    }
    if (article.localGroupId !== undefined)
      groupHasProduct.set(article.localGroupId, (groupHasProduct.get(article.localGroupId) ?? false) || product);
  }
  // The rows name products first; only rows asked beyond the products name articles that are none.
  let productRowsLeft = Math.min(rows, products);
  let otherRowsLeft = rows - productRowsLeft;

  const lines: string[] = [`\uFEFF${HEADER.join(';')}`];
  const groups = [...groupHasProduct.keys()].sort();
  for (const group of groups) {
    const random = createRandom(hash32(seed, 0x67_72_70, Number(group.slice(2))));
    const prefix = ARTICLE_CATEGORIES[Math.floor(Number(group.slice(2)) / 10) - 1]?.prefix ?? 'SLU';
    const taxonomy = taxonomyOf(prefix);
    const cells = [
      `group:${group}`,
      '',
      description(random, `Skupina ${taxonomy.shop.split(' > ').at(-1) ?? ''}`, 300),
      random.pick(taxonomy.brands),
      taxonomy.shop,
      String(taxonomy.google),
      taxonomy.heureka,
      '',
      random.pick(LABELS),
    ];
    lines.push(cells.map(csvField).join(';'));
  }

  let written = 0;
  let expectedMatched = 0;
  let expectedEnrichedProducts = 0;
  for (let index = 0; index < articles; index++) {
    const product = isProduct[index] === 1;
    const take = product ? productRowsLeft > 0 : otherRowsLeft > 0;
    if (product && (take || catalog.articleAt(index).localGroupId !== undefined)) expectedEnrichedProducts += 1;
    if (!take) continue;
    if (product) {
      productRowsLeft -= 1;
      expectedMatched += 1;
    } else otherRowsLeft -= 1;
    written += 1;
    const article = catalog.articleAt(index);
    const random = createRandom(hash32(seed, 0x65_6e_72, index));
    const taxonomy = taxonomyOf(categoryOf(article));
    const brand = random.pick(taxonomy.brands);
    let title = `${article.name} – ${brand}`;
    while (title.length < 45) title += `, ${random.pick(TITLE_PHRASES)}`;
    // After the phrases, so that the prefix changes the titles and nothing else of the row.
    if (options.titlePrefix !== undefined) title = `${options.titlePrefix}${title}`;
    const image = `${IMAGE_HOST}/${article.localId}`;
    const cells = [
      article.localId,
      title.length > 150 ? title.slice(0, 150).trimEnd() : title,
      // A tenth of the rows leave the description to their group's row.
      random.chance(0.1) ? '' : description(random, article.name, 300),
      brand,
      `${taxonomy.shop} > ${article.name.split(' ').slice(0, 2).join(' ')}`,
      String(taxonomy.google),
      taxonomy.heureka,
      `${image}-2.jpg,${image}-3.jpg`,
      random.pick(LABELS),
    ];
    lines.push(cells.map(csvField).join(';'));
  }
  const text = `${lines.join('\r\n')}\r\n`;
  const bytes = Buffer.from(text, 'utf8');
  writeFileSync(path, bytes);
  return {
    path,
    bytes: bytes.byteLength,
    rows: written,
    groups: groups.length,
    products,
    expectedMatched,
    expectedUnmatched: written - expectedMatched,
    expectedGroupsUnmatched: [...groupHasProduct.values()].filter((has) => !has).length,
    expectedEnrichedProducts,
  };
}
