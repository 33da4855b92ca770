import { AVAILABILITY_IN_STOCK, AVAILABILITY_OUT_OF_STOCK } from './catalog-vocabulary.js';
import { encodedChunks } from './encoded-chunks.js';
import { createRandom, hash32, round2 } from './prng.js';
import { articleCode, type SandboxUnit } from './sandbox-catalog.js';
import type { SandboxState } from './sandbox-state.js';

const SALT_XML = 60;

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';
/** What the vendor documents as the example answer: an empty document with a `root` element. */
export const EMPTY_PRICE_LIST = `${XML_DECLARATION}<root/>\n`;

const XML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/**
 * Markup characters, and the characters XML 1.0 cannot carry at all, not even as a reference: C0 controls
 * other than TAB, LF and CR, U+FFFE and U+FFFF. (Lone surrogates never reach the bytes: Node writes them to
 * UTF-8 as U+FFFD.)
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const ESCAPED = /[&<>"'\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
/** `ESCAPED` without `g`: a text that needs nothing escaped (nearly every one) is only tested, ~2.5× faster than replaced. */
const NEEDS_ESCAPING = new RegExp(ESCAPED.source);

/**
 * Text for XML content or an attribute value. A character XML forbids becomes U+FFFD, so a name imported
 * with a control character (assortment-import takes any JSON string) never makes the sandbox's own
 * documents ill-formed. U+FFFD rather than nothing, as the bridge's parser does in codes: visibly damaged.
 */
export function escapeXml(text: string): string {
  return NEEDS_ESCAPING.test(text) ? text.replace(ESCAPED, (char) => XML_ESCAPES[char] ?? '\uFFFD') : text;
}

function element(name: string, value: string): string {
  return `<${name}>${value}</${name}>`;
}

/** Codes of the rows that match no article (a deleted article still in the POS price list). */
export function orphanCodes(unit: SandboxUnit): readonly string[] {
  return [`ZRUSENO-${unit.code}`, '9999999999'];
}

function orphanItem(code: string): string {
  return `  <SHOPITEM>${element('CODE', code)}${element('PRICE_VAT', '10.00')}${element('CURRENCY', 'CZK')}<STOCK>${element('AMOUNT', '0.000')}</STOCK></SHOPITEM>\n`;
}

/** One SHOPITEM of article `index` in `unit`, or '' when the article is not sold. */
function shopItem(state: SandboxState, unit: SandboxUnit, index: number): string {
  const article = state.article(index);
  if (article.isSalesItem === false) return '';
  const code = articleCode(article);
  if (code === undefined) return '';
  const random = createRandom(hash32(state.catalog.seed, SALT_XML, unit.index, index));
  const price = state.unitPrice(unit.index, article);
  const netOnly = random.chance(0.02);
  const parts: string[] = [element('CODE', escapeXml(code)), element('NAME', escapeXml(article.name))];
  if (article.ean !== undefined && random.chance(0.7)) parts.push(element('EAN', article.ean));
  if (netOnly) {
    // A net price only: the bridge must not read it as the gross price (docs/catalog-rules.md rule 3).
    parts.push(element('PRICE', round2(price.priceVat / (1 + article.vatRate / 100)).toFixed(2)));
  } else {
    parts.push(element('PRICE_VAT', price.priceVat.toFixed(2)));
    if (price.standardPrice !== undefined) parts.push(element('STANDARD_PRICE', price.standardPrice.toFixed(2)));
    else if (random.chance(0.08)) parts.push('<STANDARD_PRICE/>');
    if (price.actionPrice !== undefined) parts.push(element('ACTION_PRICE', price.actionPrice.toFixed(2)));
    else if (random.chance(0.1)) parts.push('<ACTION_PRICE/>');
  }
  parts.push(element('CURRENCY', 'CZK'));
  if (article.isStockItem !== false) {
    parts.push(`<STOCK>${element('AMOUNT', (state.stockMilli(unit.index, index) / 1000).toFixed(3))}</STOCK>`);
  }
  parts.push(element('AVAILABILITY_IN_STOCK', escapeXml(random.pick(AVAILABILITY_IN_STOCK))));
  parts.push(element('AVAILABILITY_OUT_OF_STOCK', escapeXml(random.pick(AVAILABILITY_OUT_OF_STOCK))));
  // Shoptet's schema interleaves children freely; about one item in ten comes in another order.
  const orderRoll = random.next();
  if (orderRoll < 0.05) parts.reverse();
  else if (orderRoll < 0.1) parts.push(...parts.splice(0, 2));
  return `  <SHOPITEM>\n    ${parts.join('\n    ')}\n  </SHOPITEM>\n`;
}

/**
 * A unit's e-shop price list in Shoptet update-import form (docs/pos-interface.md, the price-list XML), as UTF-8
 * in chunks of about 64 KiB so a 100k-article catalog never sits in memory whole. CODE is the article's
 * internalIdentifier when it has one, else its PLU.
 */
export function renderPriceList(state: SandboxState, unit: SandboxUnit): Generator<Buffer> {
  return encodedChunks(priceListTexts(state, unit));
}

/** The price list's texts, a row at a time (`renderPriceList` encodes them). */
export function* priceListTexts(state: SandboxState, unit: SandboxUnit): Generator<string> {
  const [firstOrphan, lastOrphan] = orphanCodes(unit);
  yield `${XML_DECLARATION}<SHOP>\n`;
  if (firstOrphan !== undefined) yield orphanItem(firstOrphan);
  for (let index = 0; index < state.catalog.articleCount; index++) {
    const item = shopItem(state, unit, index);
    if (item !== '') yield item;
  }
  if (lastOrphan !== undefined) yield orphanItem(lastOrphan);
  yield '</SHOP>\n';
}
