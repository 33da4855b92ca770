import { XMLParser } from 'fast-xml-parser';

/**
 * Google's pushed values read from its served feeds (docs/decisions/0013-channel-push.md, section 1, "Same
 * item, same values as the feed"): one `google.xml` item (`templates/google.json`) and the
 * `local-inventory.tsv` rows of one product (`templates/google-local-inventory.json`), as the feed lens
 * renders them. Pure; money stays the feed's two-decimal text until `toAmountMicros` (exact, no float math).
 */

/** Google's `availability` of a product, as the Merchant API spells it. */
export type GoogleAvailability = 'IN_STOCK' | 'OUT_OF_STOCK';
/** `LocalInventoryAttributes.availability`: the local feed's "limited availability" (1-2 pieces) too. */
export type GoogleLocalAvailability = GoogleAvailability | 'LIMITED_AVAILABILITY';

/** The product attributes the push sends, as the feed's item writes them (text; `undefined` when left out). */
export interface GoogleFeedItemValues {
  readonly title?: string;
  readonly description?: string;
  readonly link?: string;
  readonly imageLink?: string;
  readonly availability?: string;
  /** `"129.00 CZK"`: `{price|money} {currency}`. */
  readonly price?: string;
  readonly salePrice?: string;
  readonly gtin?: string;
  readonly brand?: string;
}

const parser = new XMLParser({
  ignoreAttributes: true,
  // Values stay text: "129.00 CZK", a GTIN with leading zeros, an id of digits.
  parseTagValue: false,
  trimValues: true,
  processEntities: true,
  isArray: () => false,
});

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  // A repeated element (never one of those read here) or an element with children: not a value.
  return undefined;
}

/** The values of one `<item>` of the Google feed (its exact text in the feed). */
export function googleItemValues(itemXml: string): GoogleFeedItemValues | undefined {
  let parsed: unknown;
  try {
    parsed = parser.parse(itemXml);
  } catch {
    return undefined;
  }
  const item = (parsed as { item?: unknown }).item;
  if (item === null || typeof item !== 'object') return undefined;
  const get = (name: string) => text((item as Record<string, unknown>)[name]);
  const values: Record<string, string | undefined> = {
    title: get('title'),
    description: get('description'),
    link: get('link'),
    imageLink: get('g:image_link'),
    availability: get('g:availability'),
    price: get('g:price'),
    salePrice: get('g:sale_price'),
    gtin: get('g:gtin'),
    brand: get('g:brand'),
  };
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as GoogleFeedItemValues;
}

/** `"129.00 CZK"` → amount 129 and its currency; `undefined` for any other text. */
export function feedMoney(value: string | undefined): { readonly amount: number; readonly currency: string } | undefined {
  const match = value === undefined ? null : /^(\d{1,18}(?:\.\d{1,2})?) ([A-Z]{3})$/.exec(value);
  if (match === null) return undefined;
  // The shortest text of a two-decimal number reads back as itself, so `toAmountMicros` sees "129.00"'s value exactly.
  return { amount: Number(match[1]), currency: match[2] ?? '' };
}

const PRODUCT_AVAILABILITY: Readonly<Record<string, GoogleAvailability>> = {
  in_stock: 'IN_STOCK',
  out_of_stock: 'OUT_OF_STOCK',
  'in stock': 'IN_STOCK',
  'out of stock': 'OUT_OF_STOCK',
};

/** The feed's `g:availability` as the Merchant API's enum name. */
export function productAvailabilityOf(value: string | undefined): GoogleAvailability | undefined {
  return value === undefined ? undefined : PRODUCT_AVAILABILITY[value];
}

const LOCAL_AVAILABILITY: Readonly<Record<string, GoogleLocalAvailability>> = {
  'in stock': 'IN_STOCK',
  'limited availability': 'LIMITED_AVAILABILITY',
  'out of stock': 'OUT_OF_STOCK',
  in_stock: 'IN_STOCK',
  limited_availability: 'LIMITED_AVAILABILITY',
  out_of_stock: 'OUT_OF_STOCK',
};

/** The local inventory feed's `availability` as `LocalInventoryAttributes.availability`. */
export function localAvailabilityOf(value: string | undefined): GoogleLocalAvailability | undefined {
  return value === undefined ? undefined : LOCAL_AVAILABILITY[value];
}

/**
 * The rows of a tab-delimited feed's text by its header (`head`): Google's TSV dialect has no quoting (TAB and
 * line breaks inside values became spaces), so a row is its line split at TABs. Empty cells are left out.
 */
export function tsvRows(head: string, textOfItem: string): Record<string, string>[] {
  const headers = (head.split('\n')[0] ?? '').replace(/^\uFEFF/, '').split('\t');
  return textOfItem
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const cells = line.replace(/\r$/, '').split('\t');
      const row: Record<string, string> = {};
      headers.forEach((header, index) => {
        const cell = cells[index];
        if (cell !== undefined && cell !== '') row[header] = cell;
      });
      return row;
    });
}
