import type { LeftOutCode } from '../../core/feeds/explain-item.js';
import type { Lang } from '../../core/text/local-text.js';
import { plural } from '../../core/text/local-text.js';

/** The product page's texts (docs/console.md#product-detail); `cs` must have every key `en` has. */
const en = {
  notFoundTitle: 'Product not found',
  notFound: (id: string) => `No product has the id “${id}”.`,
  notReady: 'The first catalog is still being built; this page reloads by itself.',
  backToSearch: 'Search the products',
  identifiers: 'Identifiers',
  eanProblem: {
    length: 'is not a GTIN (it needs 8, 12, 13 or 14 digits)',
    zeros: 'is all zeros',
    'check-digit': 'has a wrong check digit (mistyped?)',
    restricted: 'is a number for in-store use (weighed goods, own labels), not a GTIN',
  },
  eanProblemNote: 'The feeds send no GTIN for it; fix the EAN in the POS.',
  id: 'Id (POS localId)',
  name: 'Name',
  groupId: 'Article group',
  ean: 'EAN',
  plu: 'PLU',
  internalIdentifier: 'Internal identifier',
  measureUnit: 'Measure unit',
  isStockItem: 'Kept in stock',
  yes: 'yes',
  no: 'no (a service)',
  enrichment: 'Enrichment sheet',
  noEnrichment: 'No row of the enrichment sheet names this product.',
  offers: 'Prices and stock per unit',
  unit: 'Unit',
  storeCode: 'Store code',
  price: 'Price',
  salePrice: 'Sale price',
  standardPrice: '“Was” price',
  stock: 'Stock',
  availability: 'Availability',
  allUnits: 'All units',
  inStock: 'In stock',
  outOfStock: 'Out of stock',
  unknown: '—',
  sources: 'Where the values come from',
  priceList: 'Price list',
  stockExport: 'Stock export',
  lastSale: 'Last sale that changed the stock',
  sourcesNote:
    'Per unit, the rows of the documents that the last full sync matched to this product (or, when this instance did not run it, the codes such a row carries). Sales are those this instance processed since it started.',
  notKnown: 'Not known since the start (the catalog was loaded from the store; the next full sync tells).',
  noDocument: 'The unit had no such document in the last sync.',
  noCode: 'No row can name it: it has no code under the keys this document was matched by.',
  rowWithCode: 'A row with one of the codes',
  priceRow: (row: number, key: string, code: string) => `Item ${row} of the price list, matched by ${key} = ${code}.`,
  noPriceRow: "No row of the unit's price list names this product.",
  stockRow: (line: number, key: string, code: string) => `Line ${line} of the stock export, matched by ${key} = ${code}.`,
  noStockRow: "No row of the unit's stock export gave it a quantity.",
  priceFromArticle: "The price is the article's own sales price.",
  noPrice: 'No price.',
  stockFromPriceList: "The stock is the price list's STOCK value.",
  noStock: 'The stock is not known.',
  rereadSince: (when: string) => `The stock was re-read from the export since, ${when}.`,
  readAt: (when: string) => `read ${when}`,
  saleByMovements: (receipt: string, when: string, delta: string) =>
    `Receipt ${receipt}, sold ${when}: stock movement ${delta} applied.`,
  saleByReread: (receipt: string, when: string) =>
    `Receipt ${receipt}, sold ${when}: its movements were not found, so the unit's stock was re-read.`,
  noSale: 'None since the start.',
  feeds: 'Feeds',
  feedsNote: 'Each feed in each view that serves it: the item exactly as the feed carries it, or why it is left out.',
  included: 'Included',
  leftOut: 'Left out',
  renderedItem: 'The item as rendered',
  noText: 'Included (the workbook has no text to show).',
  view: 'view',
  recordsLeftOut: 'Records of single units left out:',
  reasonCode: 'Code',
  reasons: {
    'not-offered': () => 'This unit does not offer the product.',
    excluded: () => "The enrichment sheet's exclude column leaves it out of this feed.",
    filtered: () => "The feed's filter leaves it out (for example, only goods in stock).",
    'out-of-stock': () => 'Sold out, and this feed leaves sold-out goods out.',
    missing: (attribute: string) =>
      attribute.includes('|')
        ? `It has none of ${attribute.split('|').join(', ')}, and the channel requires one of them.`
        : `${attribute} is missing (the channel requires it).`,
    'too-long': (attribute: string, limit: number) =>
      `${attribute} is longer than ${plural('en', limit, { one: '# character', other: '# characters' })}.`,
    'no-match': (attribute: string, _limit: number, pattern: string) =>
      `${attribute} does not have the required form (${pattern}).`,
  } satisfies Record<LeftOutCode, (attribute: string, limit: number, pattern: string) => string>,
};

const cs: typeof en = {
  notFoundTitle: 'Produkt nenalezen',
  notFound: (id: string) => `Žádný produkt nemá id „${id}“.`,
  notReady: 'První katalog se ještě sestavuje; stránka se sama znovu načte.',
  backToSearch: 'Hledat produkty',
  identifiers: 'Identifikátory',
  eanProblem: {
    length: 'není GTIN (musí mít 8, 12, 13 nebo 14 číslic)',
    zeros: 'je samé nuly',
    'check-digit': 'má chybnou kontrolní číslici (překlep?)',
    restricted: 'je číslo pro vnitřní potřebu obchodu (vážené zboží, vlastní etikety), ne GTIN',
  },
  eanProblemNote: 'Feedy za něj neposílají žádný GTIN; opravte EAN v pokladně.',
  id: 'Id (localId v pokladně)',
  name: 'Název',
  groupId: 'Skupina zboží',
  ean: 'EAN',
  plu: 'PLU',
  internalIdentifier: 'Interní kód',
  measureUnit: 'Měrná jednotka',
  isStockItem: 'Skladová položka',
  yes: 'ano',
  no: 'ne (služba)',
  enrichment: 'Obohacující tabulka',
  noEnrichment: 'Žádný řádek obohacující tabulky tento produkt neuvádí.',
  offers: 'Ceny a zásoby podle prodejen',
  unit: 'Prodejna',
  storeCode: 'Kód obchodu',
  price: 'Cena',
  salePrice: 'Akční cena',
  standardPrice: 'Původní cena',
  stock: 'Zásoba',
  availability: 'Dostupnost',
  allUnits: 'Všechny prodejny',
  inStock: 'Skladem',
  outOfStock: 'Není skladem',
  unknown: '—',
  sources: 'Odkud hodnoty pocházejí',
  priceList: 'Ceník',
  stockExport: 'Export zásob',
  lastSale: 'Poslední prodej, který změnil zásobu',
  sourcesNote:
    'Pro každou prodejnu řádky dokumentů, které poslední úplná synchronizace k tomuto produktu přiřadila (nebo, pokud ji neprovedla tato instance, kódy, které takový řádek nese). Prodeje jsou ty, které tato instance zpracovala od svého spuštění.',
  notKnown: 'Od spuštění neznámo (katalog byl načten z úložiště; řekne to až příští úplná synchronizace).',
  noDocument: 'Prodejna při poslední synchronizaci tento dokument neměla.',
  noCode: 'Žádný řádek ho nemůže označit: nemá kód v žádném z klíčů, kterými se dokument páruje.',
  rowWithCode: 'Řádek s jedním z kódů',
  priceRow: (row: number, key: string, code: string) => `Položka ${row} ceníku, spárovaná podle ${key} = ${code}.`,
  noPriceRow: 'Žádný řádek ceníku prodejny tento produkt neuvádí.',
  stockRow: (line: number, key: string, code: string) => `Řádek ${line} exportu zásob, spárovaný podle ${key} = ${code}.`,
  noStockRow: 'Žádný řádek exportu zásob prodejny mu nedal množství.',
  priceFromArticle: 'Cena je vlastní prodejní cena zboží z pokladny.',
  noPrice: 'Bez ceny.',
  stockFromPriceList: 'Zásoba je hodnota STOCK z ceníku.',
  noStock: 'Zásoba není známa.',
  rereadSince: (when: string) => `Zásoba byla od té doby znovu načtena z exportu, ${when}.`,
  readAt: (when: string) => `načteno ${when}`,
  saleByMovements: (receipt: string, when: string, delta: string) =>
    `Účtenka ${receipt}, prodáno ${when}: použit skladový pohyb ${delta}.`,
  saleByReread: (receipt: string, when: string) =>
    `Účtenka ${receipt}, prodáno ${when}: pohyby se nenašly, proto se zásoba prodejny načetla znovu.`,
  noSale: 'Od spuštění žádný.',
  feeds: 'Feedy',
  feedsNote: 'Každý feed v každém pohledu, který ho nabízí: položka přesně tak, jak ji feed obsahuje, nebo proč v něm chybí.',
  included: 'Obsažen',
  leftOut: 'Vynechán',
  renderedItem: 'Položka, jak ji feed obsahuje',
  noText: 'Obsažen (sešit nemá text, který by šlo ukázat).',
  view: 'pohled',
  recordsLeftOut: 'Vynechané záznamy jednotlivých prodejen:',
  reasonCode: 'Kód',
  reasons: {
    'not-offered': () => 'Tato prodejna produkt nenabízí.',
    excluded: () => 'Sloupec exclude v obohacující tabulce ho z tohoto feedu vyřazuje.',
    filtered: () => 'Vyřazuje ho filtr feedu (například jen zboží skladem).',
    'out-of-stock': () => 'Je vyprodaný a tento feed vyprodané zboží vynechává.',
    missing: (attribute: string) =>
      attribute.includes('|')
        ? `Nemá žádnou z hodnot ${attribute.split('|').join(', ')} a kanál alespoň jednu vyžaduje.`
        : `Chybí ${attribute} (kanál ho vyžaduje).`,
    'too-long': (attribute: string, limit: number) =>
      `${attribute} je delší než ${plural('cs', limit, { one: '# znak', few: '# znaky', other: '# znaků' })}.`,
    'no-match': (attribute: string, _limit: number, pattern: string) => `${attribute} nemá požadovaný tvar (${pattern}).`,
  },
};

export const PRODUCT_TEXTS: { readonly en: typeof en; readonly cs: typeof en } = { en, cs };

export type ProductTexts = typeof en;

export function availabilityWords(texts: ProductTexts, availability: string): string {
  return availability === 'out_of_stock' ? texts.outOfStock : texts.inStock;
}

export type { Lang };
