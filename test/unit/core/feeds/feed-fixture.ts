import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Availability } from '../../../../src/core/catalog/catalog.js';
import type { FeedContext, FeedItem, FeedOffer } from '../../../../src/core/feeds/feed-item.js';
import type { TemplateFile } from '../../../../src/core/feeds/load-templates.js';

/** Repository root (tests run from anywhere). */
export const ROOT = join(import.meta.dirname, '../../../..');

/** Every file of `templates/`, as the app reads them. */
export function readTemplateFiles(): TemplateFile[] {
  const directory = join(ROOT, 'templates');
  return readdirSync(directory)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({ name: `templates/${file}`, text: readFileSync(join(directory, file), 'utf8') }));
}

export const FIXTURE_CONTEXT: FeedContext = {
  version: 'v-golden-1',
  generatedAt: '2026-11-22T10:00:00Z',
  unit: 'all',
  unitName: 'Všechny prodejny',
  currency: 'CZK',
  baseUrl: 'https://feeds.example.cz/',
};

/**
 * A stock item as the catalog makes it (docs/catalog-rules.md rule 7): `stocks` per unit (`undefined`:
 * unknown), the `all` view's sum floored per unit, availability by the sum or the unknown-stock setting.
 */
export function stockItem(
  id: string,
  stocks: Readonly<Record<string, number | undefined>>,
  unknownStock: Availability = 'out_of_stock',
): FeedItem {
  const availabilityOf = (stock: number | undefined): Availability =>
    stock === undefined ? unknownStock : stock > 0 ? 'in_stock' : 'out_of_stock';
  const offers: FeedOffer[] = Object.entries(stocks).map(([unit, stock]) => ({
    unit,
    storeCode: unit.toLowerCase(),
    unitName: unit,
    price: 100,
    ...(stock === undefined ? {} : { stock }),
    availability: availabilityOf(stock),
  }));
  let sum: number | undefined;
  for (const offer of offers) if (offer.stock !== undefined) sum = (sum ?? 0) + Math.max(0, offer.stock);
  let availability = availabilityOf(sum);
  if (availability === 'out_of_stock' && offers.some((offer) => offer.stock === undefined)) availability = unknownStock;
  return {
    id,
    name: `Item ${id}`,
    price: 100,
    ...(sum === undefined ? {} : { stock: sum }),
    availability,
    isStockItem: true,
    link: `https://shop.example/p/${id}`,
    imageLink: `https://shop.example/i/${id}.jpg`,
    offers,
  };
}

function praha(offer: Partial<FeedOffer> & Pick<FeedOffer, 'availability'>): FeedOffer {
  return { unit: 'PRG', storeCode: 'PRG-1', unitName: 'Praha, Na Příkopě', ...offer };
}

function brno(offer: Partial<FeedOffer> & Pick<FeedOffer, 'availability'>): FeedOffer {
  return { unit: 'BRN', storeCode: 'BRNO-2', unitName: 'Brno', ...offer };
}

/** Availability labels of the units' price lists (Offer.availabilityTexts). */
const PRAHA_TEXTS = { inStock: 'Skladem na prodejně', outOfStock: 'Na objednávku' } as const;
const BRNO_TEXTS = { inStock: 'Skladem', outOfStock: 'Dočasně vyprodáno' } as const;

const LONG_NAME = `Čokoláda hořká 70 % ${'s kousky pražených lískových ořechů a mořskou solí, '.repeat(5)}— dárkové balení`;

/**
 * A small fixed catalog (the `all` view) that touches every rule the feeds must keep: see the comment on
 * each item. Golden files in test/fixtures/feeds/ are rendered from it.
 */
export const FIXTURE_ITEMS: readonly FeedItem[] = [
  // Diacritics everywhere, sale and "was" price, a valid EAN-13, two units, a URL with diacritics and a space;
  // each unit's own availability labels (the primary unit's, Praha's, for the all view).
  {
    id: 'a-1001',
    name: 'Káva zrnková 1 kg',
    groupId: 'g-7',
    ean: '8594000000013',
    plu: 1001,
    internalIdentifier: 'KAV-1',
    measureUnit: 'piece',
    price: 129,
    salePrice: 99,
    standardPrice: 149,
    stock: 12,
    availability: 'in_stock',
    availabilityTexts: PRAHA_TEXTS,
    isStockItem: true,
    link: 'https://shop.example.cz/p/a-1001',
    imageLink: 'https://shop.example.cz/obrázky/káva zrnková.jpg',
    // The marketer's sheet: a title, a description with a line break, categories, extra images, a label.
    enrichment: {
      title: 'Káva zrnková Arabica 1 kg',
      description: 'Jemná arabika z Etiopie.\nPražená v Brně.',
      brand: 'Pražírna Brno',
      category: 'Potraviny > Káva',
      googleProductCategory: '1868',
      heurekaCategory: 'Heureka.cz | Jídlo a nápoje | Káva',
      additionalImageLinks: ['https://shop.example.cz/obrázky/káva-2.jpg', 'https://shop.example.cz/img/kava-3.jpg'],
      customLabel0: 'bestseller',
    },
    offers: [
      praha({
        price: 129,
        salePrice: 99,
        standardPrice: 149,
        stock: 7,
        availability: 'in_stock',
        availabilityTexts: PRAHA_TEXTS,
      }),
      brno({ price: 129, standardPrice: 149, stock: 5, availability: 'in_stock', availabilityTexts: BRNO_TEXTS }),
    ],
  },
  // XML specials and quotes in the name; an EAN with a leading zero; a digits-only code with a leading zero.
  {
    id: 'a-1002',
    name: `Čaj "Earl Grey" & <citron> 'bio'`,
    ean: '0036000291452',
    plu: 1002,
    internalIdentifier: '0042',
    price: 59.9,
    stock: 3,
    availability: 'in_stock',
    isStockItem: true,
    link: 'https://shop.example.cz/p/a-1002?utm_source=feed&variant=1',
    imageLink: 'https://shop.example.cz/img/a-1002.jpg',
    offers: [
      praha({ price: 59.9, stock: 3, availability: 'in_stock' }),
      brno({ price: 59.9, stock: 0, availability: 'out_of_stock' }),
    ],
  },
  // Control characters, U+FFFE and a C1 control pasted into the name; no EAN.
  {
    id: 'a-1003',
    name: 'Hrnek\u0001 modrý\u001F s potiskem\uFFFE\u0085',
    price: 89,
    stock: 2,
    availability: 'in_stock',
    isStockItem: true,
    link: 'https://shop.example.cz/p/a-1003',
    imageLink: 'https://shop.example.cz/img/a-1003.jpg',
    offers: [praha({ price: 89, stock: 2, availability: 'in_stock' })],
  },
  // Emoji (kept), a lone surrogate (stripped), HTML-entity text (kept as text); an EAN with a wrong check digit.
  {
    id: 'a-1004',
    name: 'Dort &eacute;clair 🎂 ☕\uD83D',
    ean: '8594000000018',
    price: 45.5,
    stock: 4,
    availability: 'in_stock',
    isStockItem: true,
    link: 'https://shop.example.cz/p/a-1004',
    imageLink: 'https://shop.example.cz/img/a-1004.jpg',
    offers: [praha({ price: 45.5, stock: 4, availability: 'in_stock' })],
  },
  // A service: no stock kept, always in stock.
  {
    id: 'a-1005',
    name: 'Dárkové balení',
    price: 25,
    availability: 'in_stock',
    isStockItem: false,
    link: 'https://shop.example.cz/p/a-1005',
    imageLink: 'https://shop.example.cz/img/a-1005.jpg',
    // Not a product to advertise on comparison sites: the sheet's `exclude` column.
    enrichment: { exclude: ['heureka', 'zbozi'] },
    offers: [praha({ price: 25, availability: 'in_stock' }), brno({ price: 25, availability: 'in_stock' })],
  },
  // Sold out everywhere; a restricted-circulation (in-store) EAN that is not a GTIN; labels with XML specials.
  {
    id: 'a-1006',
    name: 'Sirup malinový 0,5 l',
    ean: '2000000000008',
    price: 79,
    standardPrice: 99,
    stock: 0,
    availability: 'out_of_stock',
    availabilityTexts: { inStock: 'Skladem', outOfStock: 'Vyprodáno – <do 14 dnů> & "víc"' },
    isStockItem: true,
    link: 'https://shop.example.cz/p/a-1006',
    imageLink: 'https://shop.example.cz/img/a-1006.jpg',
    offers: [
      praha({ price: 79, stock: 0, availability: 'out_of_stock' }),
      brno({ price: 79, stock: -1, availability: 'out_of_stock' }),
    ],
  },
  // No price: left out wherever a price is required (with a warning).
  {
    id: 'a-1007',
    name: 'Vzorek zdarma',
    stock: 10,
    availability: 'in_stock',
    isStockItem: true,
    link: 'https://shop.example.cz/p/a-1007',
    imageLink: 'https://shop.example.cz/img/a-1007.jpg',
    offers: [praha({ stock: 10, availability: 'in_stock' })],
  },
  // A name over every channel's limit; fractional stock (0.5 kg still counts as 1 available).
  {
    id: 'a-1008',
    name: LONG_NAME,
    measureUnit: 'kg',
    price: 1234.5,
    stock: 0.5,
    availability: 'in_stock',
    isStockItem: true,
    link: 'https://shop.example.cz/p/a-1008',
    imageLink: 'https://shop.example.cz/img/a-1008.jpg',
    offers: [praha({ price: 1234.5, stock: 0.5, availability: 'in_stock' })],
  },
  // Formula injection: name, codes and group starting with = - + @.
  {
    id: 'a-1009',
    name: '=HYPERLINK("http://evil.example";"klik")',
    groupId: '@g',
    ean: '+420123',
    internalIdentifier: '-5',
    price: 1,
    stock: 1,
    availability: 'in_stock',
    isStockItem: true,
    link: 'https://shop.example.cz/p/a-1009',
    imageLink: 'https://shop.example.cz/img/a-1009.jpg',
    offers: [praha({ price: 1, stock: 1, availability: 'in_stock' })],
  },
  // An id Heureka/Zboží cannot take (slash, space); delimiters in the name; a valid EAN-8; one unit only.
  {
    id: 'a/1010 x',
    name: 'Mýdlo; levandule, 100 g',
    ean: '96385074',
    plu: 1010,
    price: 35,
    stock: 1,
    availability: 'in_stock',
    isStockItem: true,
    link: 'https://shop.example.cz/p/a-1010',
    imageLink: 'https://shop.example.cz/img/a-1010.jpg',
    offers: [brno({ price: 35, stock: 1, availability: 'in_stock' })],
  },
];
