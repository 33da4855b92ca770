import type { Response } from 'express';
import type { LeftOutReason } from '../../core/feeds/explain-item.js';
import { formatDateTime, formatMoney, formatNumber, textsFor } from '../../core/text/local-text.js';
import type { FeedVerdict, OfferView, ProductView } from '../../services/products/product-lookup.js';
import type { DocumentSource, UnitSources } from '../../services/products/product-sources.js';
import { googleVerdictSection } from './channel-verdict-section.js';
import { feedTitle, measureUnitText } from './feed-names.js';
import { escapeHtml as h } from './html.js';
import { type ConsoleContext, sendPage } from './layout.js';
import { metaVerdictSection } from './meta-verdict-section.js';
import { availabilityWords, PRODUCT_TEXTS, type ProductTexts } from './product-texts.js';

/**
 * The console's page of one product (docs/console.md#product-detail): no script, every value escaped,
 * tables wrapped so a 390 px screen scrolls them alone. Stable ids for browser tests: `#identifiers`,
 * `#offers`, `#sources`, `#feeds`, and per feed and view `#feed-{file}-{view}` with class `included` or
 * `left-out`.
 */

interface PageParts {
  readonly context: ConsoleContext;
  readonly t: ProductTexts;
  readonly view: ProductView;
}

function row(label: string, value: string | number | undefined): string {
  return value === undefined ? '' : `<tr><th scope="row">${h(label)}</th><td>${h(String(value))}</td></tr>`;
}

function identifiers({ context, t, view }: PageParts): string {
  const p = view.product;
  const rows = [
    row(t.id, p.id),
    row(t.name, p.name),
    row(t.ean, p.ean),
    view.eanProblem === undefined
      ? ''
      : `<tr id="ean-problem"><td colspan="2" class="bad">EAN ${h(p.ean ?? '')} ${h(t.eanProblem[view.eanProblem])}. ${h(t.eanProblemNote)}</td></tr>`,
    row(t.plu, p.plu),
    row(t.internalIdentifier, p.internalIdentifier),
    row(t.groupId, p.groupId),
    row(t.measureUnit, p.measureUnit === undefined ? undefined : measureUnitText(context.lang, p.measureUnit)),
    row(t.isStockItem, p.isStockItem ? t.yes : t.no),
  ].join('');
  return `<h2>${h(t.identifiers)}</h2><div class="table-wrap"><table id="identifiers">${rows}</table></div>`;
}

function enrichment({ t, view }: PageParts): string {
  const values = view.enrichment;
  if (values === null) return `<h2>${h(t.enrichment)}</h2><p id="enrichment" class="muted">${h(t.noEnrichment)}</p>`;
  const rows = Object.entries(values)
    .map(([key, value]) => row(key, Array.isArray(value) ? value.join(', ') : String(value)))
    .join('');
  return `<h2>${h(t.enrichment)}</h2><div class="table-wrap"><table id="enrichment">${rows}</table></div>`;
}

function offerRow({ context, t, view }: PageParts, offer: OfferView): string {
  const money = (value: number | undefined) =>
    value === undefined ? t.unknown : formatMoney(context.lang, value, view.currency);
  const unit = view.product.measureUnit === undefined ? '' : ` ${measureUnitText(context.lang, view.product.measureUnit)}`;
  const stock = offer.stock === undefined ? t.unknown : `${formatNumber(context.lang, offer.stock)}${unit}`;
  const words = availabilityWords(t, offer.availability);
  const own = offer.availabilityText;
  // The price list's own label, when it says more than the words do.
  const label = own === undefined || own.toLowerCase() === words.toLowerCase() ? words : `${words} (${own})`;
  const name = offer.unit === 'all' ? t.allUnits : `${offer.unitName} (${offer.unit})`;
  const cells = [money(offer.price), money(offer.salePrice), money(offer.standardPrice), stock];
  return (
    `<tr id="offer-${h(offer.unit)}"><th scope="row">${h(name)}</th><td>${h(offer.storeCode ?? t.unknown)}</td>` +
    `${cells.map((cell) => `<td class="num">${h(cell)}</td>`).join('')}<td class="${offer.availability === 'in_stock' ? 'good' : 'bad'}">${h(label)}</td></tr>`
  );
}

function offers(parts: PageParts): string {
  const { t } = parts;
  const head = [t.unit, t.storeCode, t.price, t.salePrice, t.standardPrice, t.stock, t.availability]
    .map((label, index) => `<th scope="col"${index >= 2 && index <= 5 ? ' class="num"' : ''}>${h(label)}</th>`)
    .join('');
  const rows = parts.view.offers.map((offer) => offerRow(parts, offer)).join('');
  return `<h2>${h(t.offers)}</h2><div class="table-wrap"><table id="offers"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

function documentText({ context, t }: PageParts, source: DocumentSource, notes: readonly string[]): string {
  const extra = notes.map((note) => ` ${h(note)}`).join('');
  const read =
    source.readAt === null ? '' : ` <span class="muted">(${h(t.readAt(formatDateTime(context.lang, source.readAt)))})</span>`;
  // The full sync's own rows, when this instance ran it, come first: they are what matched.
  if (source.row !== undefined && source.row !== null) {
    const { row, key, code } = source.row;
    const words = source.document === 'price-list' ? t.priceRow(row, key, code) : t.stockRow(row, key, code);
    return h(words) + extra + read;
  }
  if (source.present === false) return h(t.noDocument) + extra;
  if (source.row === null) return h(source.document === 'price-list' ? t.noPriceRow : t.noStockRow) + extra + read;
  if (source.present === null) return h(t.notKnown);
  if (source.codes.length === 0) return h(t.noCode) + extra;
  const codes = source.codes.map((code) => `${h(code.key)} = <code>${h(code.code)}</code>`).join(', ');
  return `${h(t.rowWithCode)}: ${codes}${extra}${read}`;
}

/** What the page adds to a document's row: where the price or stock came from when not from it. */
function sourceNotes({ context, t }: PageParts, unit: UnitSources): { price: string[]; stock: string[] } {
  const price = unit.priceFrom === 'article' ? [t.priceFromArticle] : unit.priceFrom === 'none' ? [t.noPrice] : [];
  const stock = unit.stockFrom === 'price-list' ? [t.stockFromPriceList] : unit.stockFrom === 'none' ? [t.noStock] : [];
  if (unit.stockRereadAt !== undefined) stock.push(t.rereadSince(formatDateTime(context.lang, unit.stockRereadAt)));
  return { price, stock };
}

function saleText({ context, t }: PageParts, unit: UnitSources): string {
  const sale = unit.lastSale ?? unit.lastReread;
  if (sale === null) return h(t.noSale);
  const when = formatDateTime(context.lang, sale.saleAt);
  const receipt = sale.receipt ?? sale.eventId;
  if (sale.how === 'movements') return h(t.saleByMovements(receipt, when, formatNumber(context.lang, sale.delta ?? 0)));
  return h(t.saleByReread(receipt, when));
}

function sources(parts: PageParts): string {
  const { t } = parts;
  const rows = parts.view.sources
    .map(
      (unit) =>
        `<tr id="source-${h(unit.unit)}"><th scope="row">${h(unit.unit)}</th>` +
        `<td>${documentText(parts, unit.priceList, sourceNotes(parts, unit).price)}</td>` +
        `<td>${documentText(parts, unit.stock, sourceNotes(parts, unit).stock)}</td><td>${saleText(parts, unit)}</td></tr>`,
    )
    .join('');
  const head = [t.unit, t.priceList, t.stockExport, t.lastSale].map((label) => `<th scope="col">${h(label)}</th>`).join('');
  return `<h2>${h(t.sources)}</h2><p class="muted">${h(t.sourcesNote)}</p><div class="table-wrap"><table id="sources"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

function reasonText(t: ProductTexts, reason: LeftOutReason, view: ProductView): string {
  const attribute = reason.attribute ?? '';
  let words = t.reasons[reason.code](attribute, reason.limit ?? 0, reason.pattern ?? '');
  // A required GTIN that is missing because the POS's EAN is not valid: say so where the reader looks.
  if (view.eanProblem !== undefined && /gtin|ean/i.test(attribute)) {
    words += ` EAN ${view.product.ean ?? ''} ${t.eanProblem[view.eanProblem]}.`;
  }
  return reason.unit === undefined ? words : `${reason.unit}: ${words}`;
}

function feedItem({ context, t, view }: PageParts, verdict: FeedVerdict): string {
  const id = `feed-${verdict.file}-${verdict.view}`;
  const name = `<a href="${h(context.href(verdict.path))}">${h(feedTitle(context.lang, verdict.file, verdict.title))}</a> <span class="muted">(${h(verdict.file)}, ${h(t.view)} ${h(verdict.view)})</span>`;
  if (!verdict.included) {
    const code = verdict.reason.code;
    // Every reason code has an entry there (test/unit/docs/report-codes.test.ts checks it).
    const link = ` <a class="code" href="/docs/report-codes#${h(code)}">${h(code)}</a>`;
    return `<li id="${h(id)}" class="left-out"><span class="bad" aria-label="${h(t.leftOut)}">✗</span> ${name}<br><span class="reason">${h(reasonText(t, verdict.reason, view))}</span>${link}</li>`;
  }
  const records =
    verdict.leftOutRecords === undefined
      ? ''
      : `<br><span class="muted">${h(t.recordsLeftOut)} ${h(verdict.leftOutRecords.map((record) => `${record.unit ?? ''} ${record.attribute}: ${record.message}`).join('; '))}</span>`;
  const text =
    verdict.text === undefined
      ? `<br><span class="muted">${h(t.noText)}</span>`
      : `<details><summary>${h(t.renderedItem)}</summary><pre>${h(verdict.text)}</pre></details>`;
  return `<li id="${h(id)}" class="included"><span class="good" aria-label="${h(t.included)}">✓</span> ${name}${records}${text}</li>`;
}

function feeds(parts: PageParts): string {
  const items = parts.view.feeds.map((verdict) => feedItem(parts, verdict)).join('');
  return `<h2>${h(parts.t.feeds)}</h2><p class="muted">${h(parts.t.feedsNote)}</p><ul id="feeds" class="feeds">${items}</ul>`;
}

export function sendProductPage(res: Response, context: ConsoleContext, view: ProductView): void {
  const parts: PageParts = { context, t: textsFor(PRODUCT_TEXTS, context.lang), view };
  const body = [
    identifiers(parts),
    offers(parts),
    sources(parts),
    enrichment(parts),
    googleVerdictSection(context.lang, view.channels?.google, (id) => context.href(`/products/${encodeURIComponent(id)}`)),
    metaVerdictSection(context.lang, view.channels?.meta),
    feeds(parts),
  ].join('\n');
  sendPage(res, context, { title: view.product.name, section: 'products', body });
}

/** The page for an id no product has (404), or before the first catalog (503, reloading itself). */
export function sendProductNotFound(res: Response, context: ConsoleContext, id: string, notReady: boolean): void {
  const t = textsFor(PRODUCT_TEXTS, context.lang);
  const message = notReady ? t.notReady : t.notFound(id);
  const body = `<p id="not-found" class="notice">${h(message)}</p><p><a id="back-to-search" href="${h(context.href('/products'))}">${h(t.backToSearch)}</a></p>`;
  sendPage(
    res,
    context,
    { title: t.notFoundTitle, section: 'products', body, ...(notReady ? { refreshSeconds: 10 } : {}) },
    notReady ? 503 : 404,
  );
}
