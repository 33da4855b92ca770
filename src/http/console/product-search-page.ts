import { ALL_UNITS } from '../../core/catalog/catalog.js';
import type { SearchMatch } from '../../core/catalog/product-search.js';
import { formatMoney, formatNumber, type Lang, type PluralForms, plural, textsFor } from '../../core/text/local-text.js';
import { escapeHtml as h } from './html.js';
import type { ConsoleContext, PageOptions } from './layout.js';
import type { ProductSearchAnswer, ProductSearchItem, SearchProblemKind, SearchQueryProblem } from './product-search-types.js';

/**
 * The console's product search page (docs/console.md#finding-a-product), `GET /products?q=…`: a form that
 * works without JavaScript and the products found, each linked to its page (`/products/{id}`).
 */

interface SearchTexts {
  readonly title: string;
  readonly intro: string;
  readonly label: string;
  readonly hint: string;
  readonly unitLabel: string;
  readonly allUnits: string;
  readonly submit: string;
  readonly found: PluralForms;
  readonly shown: PluralForms;
  readonly showMore: string;
  readonly empty: string;
  readonly emptyHint: string;
  /** The search stopped at its time budget: what was found covers the catalog's start only. */
  readonly incomplete: string;
  readonly columns: {
    readonly name: string;
    readonly id: string;
    readonly ean: string;
    readonly plu: string;
    readonly code: string;
    readonly price: string;
    readonly stock: string;
    readonly availability: string;
  };
  readonly caption: string;
  readonly inStock: string;
  readonly outOfStock: string;
  readonly unknownStock: string;
  /** `{sale}` and `{regular}` are replaced by the prices. */
  readonly sale: string;
  readonly foundBy: string;
  readonly matches: Readonly<Record<Exclude<SearchMatch, 'name'>, string>>;
  readonly problems: Readonly<Record<SearchProblemKind, string>>;
  readonly notReady: string;
  /** Too many searches wait already (503 `SEARCH_BUSY`). */
  readonly busy: string;
  readonly refreshing: string;
}

const TEXTS: { readonly en: SearchTexts; readonly cs: SearchTexts } = {
  en: {
    title: 'Products',
    intro:
      'Find a product by its name (diacritics and capitals do not matter: “cokolada” finds “Čokoláda”; every word must occur), or by its exact id, EAN, PLU or code.',
    label: 'Search products',
    hint: 'A name or part of it, an id, EAN, PLU or code.',
    unitLabel: 'Prices and stock of',
    allUnits: 'all units',
    submit: 'Search',
    found: { one: '# product found.', other: '# products found.' },
    shown: { one: 'Showing the first #.', other: 'Showing the first #.' },
    showMore: 'Show up to #',
    empty: 'No product matches “{q}”.',
    emptyHint: 'Check the spelling, try fewer or shorter words, or search by EAN, PLU, code or id.',
    incomplete:
      'The search stopped early: these products come from the first part of the catalog. A longer or more specific word finds all of them.',
    columns: {
      name: 'Name',
      id: 'Id',
      ean: 'EAN',
      plu: 'PLU',
      code: 'Code',
      price: 'Price',
      stock: 'Stock',
      availability: 'Availability',
    },
    caption: 'Products found, best matches first',
    inStock: 'In stock',
    outOfStock: 'Out of stock',
    unknownStock: 'unknown',
    sale: '{sale} (sale; regular {regular})',
    foundBy: 'found by',
    matches: { id: 'id', ean: 'EAN', plu: 'PLU', internalIdentifier: 'code' },
    problems: {
      missing: 'Type what to search for.',
      repeated: 'Give one search text.',
      empty: 'Type what to search for: a name, id, EAN, PLU or code.',
      'too-long': 'The search text may have at most 100 characters.',
      'bad-limit': 'The number of results must be a whole number from 1 to 100.',
      'bad-unit': 'There is no such unit.',
      'unknown-unit': 'There is no such unit.',
    },
    notReady: 'No catalog yet, so nothing can be found.',
    busy: 'Too many searches are running at once; search again in a moment.',
    refreshing: 'This page reloads by itself in a few seconds.',
  },
  cs: {
    title: 'Produkty',
    intro:
      'Najděte produkt podle názvu (na diakritice ani velikosti písmen nezáleží: „cokolada“ najde „Čokoláda“; musí v něm být každé slovo), nebo přesně podle ID, EAN, PLU či kódu.',
    label: 'Hledat produkty',
    hint: 'Název nebo jeho část, ID, EAN, PLU nebo kód.',
    unitLabel: 'Ceny a zásoby',
    allUnits: 'všech prodejen',
    submit: 'Hledat',
    found: {
      one: 'Nalezen # produkt.',
      few: 'Nalezeny # produkty.',
      many: 'Nalezeno # produktu.',
      other: 'Nalezeno # produktů.',
    },
    shown: { one: 'Zobrazen první #.', few: 'Zobrazeny první #.', many: 'Zobrazeno prvních #.', other: 'Zobrazeno prvních #.' },
    showMore: 'Zobrazit až #',
    empty: 'Hledání „{q}“ neodpovídá žádný produkt.',
    emptyHint: 'Zkontrolujte překlepy, zkuste méně nebo kratší slova, nebo hledejte podle EAN, PLU, kódu či ID.',
    incomplete:
      'Hledání skončilo předčasně: tyto produkty jsou z první části katalogu. Delší nebo přesnější slovo najde všechny.',
    columns: {
      name: 'Název',
      id: 'ID',
      ean: 'EAN',
      plu: 'PLU',
      code: 'Kód',
      price: 'Cena',
      stock: 'Zásoba',
      availability: 'Dostupnost',
    },
    caption: 'Nalezené produkty, nejlepší shody první',
    inStock: 'Skladem',
    outOfStock: 'Není skladem',
    unknownStock: 'neznámá',
    sale: '{sale} (akce; běžně {regular})',
    foundBy: 'nalezeno podle',
    matches: { id: 'ID', ean: 'EAN', plu: 'PLU', internalIdentifier: 'kódu' },
    problems: {
      missing: 'Zadejte, co hledáte.',
      repeated: 'Zadejte jeden hledaný text.',
      empty: 'Zadejte, co hledáte: název, ID, EAN, PLU nebo kód.',
      'too-long': 'Hledaný text může mít nejvýše 100 znaků.',
      'bad-limit': 'Počet výsledků musí být celé číslo od 1 do 100.',
      'bad-unit': 'Taková prodejna neexistuje.',
      'unknown-unit': 'Taková prodejna neexistuje.',
    },
    notReady: 'Katalog ještě není k dispozici, proto nelze nic najít.',
    busy: 'Právě běží příliš mnoho hledání najednou; zkuste hledat za chvíli znovu.',
    refreshing: 'Stránka se za pár sekund sama obnoví.',
  },
};

export interface SearchPageModel {
  /** The catalog's currency; empty without a catalog. */
  readonly currency: string;
  /** Unit codes of the served catalog, for the unit choice. */
  readonly units: readonly string[];
  /** The search text as given (absent: the form alone). */
  readonly q?: string;
  readonly unit?: string;
  /** A larger page size to offer when more products were found than shown. */
  readonly moreLimit?: number;
  /** A parameter that is not valid (a 400 page). */
  readonly problem?: SearchQueryProblem;
  /** Why there is no catalog yet (a 503 page when a search was asked for). */
  readonly notReady?: string;
  /** Too many searches wait: this one was not run (a 503 page). */
  readonly busy?: boolean;
  readonly answer?: ProductSearchAnswer;
}

/** Seconds after which a page that could not search for want of a catalog reloads itself. */
const REFRESH_SECONDS = 10;

function form(context: ConsoleContext, texts: SearchTexts, model: SearchPageModel): string {
  const qProblem = model.problem?.param === 'q' ? model.problem : undefined;
  const described = qProblem === undefined ? 'q-hint' : 'q-error q-hint';
  const invalid = qProblem === undefined ? '' : ' aria-invalid="true"';
  const unit = model.unit ?? ALL_UNITS;
  const options = [ALL_UNITS, ...model.units]
    .map((code) => {
      const label = code === ALL_UNITS ? texts.allUnits : code;
      return `<option value="${h(code)}"${code === unit ? ' selected' : ''}>${h(label)}</option>`;
    })
    .join('');
  // A GET form replaces the URL's query: the feed token (FEED_TOKEN) rides along as a field.
  const token = context.token === undefined ? '' : `<input type="hidden" name="token" value="${h(context.token)}">`;
  const error = qProblem === undefined ? '' : `<p id="q-error" class="bad">${h(texts.problems[qProblem.kind])}</p>`;
  return `<form class="search" method="get" action="/products" role="search">
<label for="q">${h(texts.label)}</label>
<input type="search" id="q" name="q" value="${h(model.q ?? '')}" maxlength="100" required aria-describedby="${described}"${invalid}>
<label for="unit">${h(texts.unitLabel)}</label>
<select id="unit" name="unit">${options}</select>${token}
<button type="submit" class="primary">${h(texts.submit)}</button>
</form>
${error}<p id="q-hint" class="muted">${h(texts.hint)}</p>`;
}

function priceCell(lang: Lang, texts: SearchTexts, item: ProductSearchItem, currency: string): string {
  if (item.price === undefined) return '—';
  const regular = formatMoney(lang, item.price, currency);
  if (item.salePrice === undefined) return h(regular);
  return h(texts.sale.replace('{sale}', formatMoney(lang, item.salePrice, currency)).replace('{regular}', regular));
}

function row(context: ConsoleContext, texts: SearchTexts, item: ProductSearchItem, currency: string): string {
  const { lang } = context;
  const link = context.href(`/products/${encodeURIComponent(item.id)}`);
  const foundBy =
    item.matchedBy === 'name' ? '' : ` <span class="muted">(${h(texts.foundBy)} ${h(texts.matches[item.matchedBy])})</span>`;
  const stock =
    item.stock === undefined ? `<span class="muted">${h(texts.unknownStock)}</span>` : h(formatNumber(lang, item.stock));
  const availability = item.availability === 'in_stock' ? `<span class="good">${h(texts.inStock)}</span>` : h(texts.outOfStock);
  return `<tr><td><a href="${h(link)}">${h(item.name)}</a>${foundBy}</td><td><code>${h(item.id)}</code></td><td>${h(item.ean ?? '')}</td><td class="num">${item.plu ?? ''}</td><td>${h(item.internalIdentifier ?? '')}</td><td class="num">${priceCell(lang, texts, item, currency)}</td><td class="num">${stock}</td><td>${availability}</td></tr>`;
}

function results(context: ConsoleContext, texts: SearchTexts, model: SearchPageModel, answer: ProductSearchAnswer): string {
  const { lang } = context;
  const incomplete = answer.complete ? '' : `\n<p class="failed">${h(texts.incomplete)}</p>`;
  if (answer.total === 0) {
    return `<div role="status"><p><strong>${h(texts.empty.replace('{q}', answer.query))}</strong></p><p>${h(texts.emptyHint)}</p></div>${incomplete}`;
  }
  let summary = plural(lang, answer.total, texts.found);
  if (answer.count < answer.total) summary += ` ${plural(lang, answer.count, texts.shown)}`;
  const more =
    answer.count < answer.total && model.moreLimit !== undefined
      ? ` <a href="${h(context.href('/products', { q: answer.query, unit: answer.unit, limit: model.moreLimit }))}">${h(texts.showMore.replace('#', String(model.moreLimit)))}</a>`
      : '';
  const c = texts.columns;
  const head = `<tr><th scope="col">${h(c.name)}</th><th scope="col">${h(c.id)}</th><th scope="col">${h(c.ean)}</th><th scope="col" class="num">${h(c.plu)}</th><th scope="col">${h(c.code)}</th><th scope="col" class="num">${h(c.price)}</th><th scope="col" class="num">${h(c.stock)}</th><th scope="col">${h(c.availability)}</th></tr>`;
  const rows = answer.items.map((item) => row(context, texts, item, model.currency)).join('\n');
  return `<p role="status">${h(summary)}${more}</p>${incomplete}
<div class="table-wrap"><table><caption class="muted">${h(texts.caption)}</caption><thead>${head}</thead><tbody>
${rows}
</tbody></table></div>`;
}

/** The page for `model`: the form, and the products found, the empty state, a problem or why there is no catalog. */
export function renderSearchPage(context: ConsoleContext, model: SearchPageModel): PageOptions {
  const texts = textsFor(TEXTS, context.lang);
  const parts = [`<p>${h(texts.intro)}</p>`, form(context, texts, model)];
  const searching = model.q !== undefined;
  if (model.problem !== undefined && model.problem.param !== 'q') {
    parts.push(`<div class="notice failed-notice" role="alert"><p>${h(texts.problems[model.problem.kind])}</p></div>`);
  }
  if (model.notReady !== undefined) {
    const refreshing = searching ? ` ${h(texts.refreshing)}` : '';
    parts.push(
      `<div class="notice" role="status"><p><strong>${h(texts.notReady)}</strong>${refreshing}</p><p class="muted">${h(model.notReady)}</p></div>`,
    );
  }
  if (model.busy === true) parts.push(`<div class="notice" role="status"><p><strong>${h(texts.busy)}</strong></p></div>`);
  if (model.answer !== undefined) parts.push(results(context, texts, model, model.answer));
  return {
    title: texts.title,
    section: 'products',
    body: parts.join('\n'),
    ...(searching && model.notReady !== undefined ? { refreshSeconds: REFRESH_SECONDS } : {}),
  };
}
