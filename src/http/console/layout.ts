import type { Request, Response } from 'express';
import { type Lang, textsFor } from '../../core/text/local-text.js';
import { escapeHtml } from './html.js';
import { langOf, rememberLang } from './i18n.js';

/** The console's sections (docs/console.md): each a page reachable from the navigation. */
export type ConsoleSection = 'overview' | 'products' | 'fetches' | 'syncs' | 'warnings' | 'admin';

const NAV_TEXTS = {
  en: {
    overview: 'Feeds',
    products: 'Products',
    fetches: 'Who fetches',
    syncs: 'Syncs',
    warnings: 'Warnings',
    admin: 'Admin',
    skip: 'Skip to content',
    navigation: 'Console',
    language: 'Language',
    docs: 'Documentation',
  },
  cs: {
    overview: 'Feedy',
    products: 'Produkty',
    fetches: 'Kdo stahuje',
    syncs: 'Synchronizace',
    warnings: 'Upozornění',
    admin: 'Správa',
    skip: 'Přeskočit na obsah',
    navigation: 'Konzole',
    language: 'Jazyk',
    docs: 'Dokumentace',
  },
};

const NAV: readonly { readonly section: ConsoleSection; readonly path: string }[] = [
  { section: 'overview', path: '/' },
  { section: 'products', path: '/products' },
  { section: 'fetches', path: '/fetches' },
  { section: 'syncs', path: '/syncs' },
  { section: 'warnings', path: '/warnings' },
  { section: 'admin', path: '/admin' },
];

/** What every console page needs from its request: the language, and links that keep the feed token. */
export interface ConsoleContext {
  readonly lang: Lang;
  /** The request's path (without the query), for the language switch. */
  readonly path: string;
  /** The feed token the page was opened with (`?token=`), carried by its links so a browser can follow them. */
  readonly token: string | undefined;
  /** The page's other query parameters (a search, a filter), kept by the language switch. */
  readonly params: Readonly<Record<string, string>>;
  /** A console link with the token kept: `href('/products', { q: 'káva' })`. */
  href(path: string, params?: Readonly<Record<string, string | number | undefined>>): string;
}

export function consoleContext(req: Request, res: Response): ConsoleContext {
  rememberLang(req, res);
  const lang = langOf(req);
  const token = typeof req.query['token'] === 'string' ? req.query['token'] : undefined;
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.query)) {
    if (typeof value === 'string' && name !== 'lang' && name !== 'token') params[name] = value;
  }
  return {
    lang,
    path: req.path,
    token,
    params,
    href(path, params = {}) {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value));
      if (token !== undefined) query.set('token', token);
      const text = query.toString();
      return text === '' ? path : `${path}?${text}`;
    },
  };
}

export interface PageOptions {
  readonly title: string;
  readonly section: ConsoleSection;
  /** The page's content, already escaped HTML. */
  readonly body: string;
  /** Reload the page every so many seconds (a catalog still building, a sync running): no script needed. */
  readonly refreshSeconds?: number;
}

/**
 * Security headers of every console page: no script runs (the console needs none), nothing is framed,
 * and the feed token in a page's links never leaves in a `Referer` to another site.
 */
export function setConsoleHeaders(res: Response): void {
  res.set({
    'content-security-policy':
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'x-frame-options': 'DENY',
    'cache-control': 'no-cache',
  });
}

/** Readable at 390 px wide and on a desktop; contrast ≥ 4.5:1 for text; a visible keyboard focus. */
const STYLE = `
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f1f1f;background:#fff;line-height:1.45}
header{background:#12355b;color:#fff;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center}
header a{color:#fff}header .brand{font-weight:700;text-decoration:none;font-size:1.1rem}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem .9rem}
nav a[aria-current=page]{font-weight:700;text-decoration-thickness:3px}
.lang{margin-left:auto;display:flex;gap:.5rem}.lang [aria-current=true]{font-weight:700;text-decoration:none}
main{padding:1rem;max-width:80rem;margin:0 auto}
h1{font-size:1.5rem;margin:.5rem 0 1rem}h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
a{color:#0b57d0}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid #e8710a;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;color:#0b57d0;padding:.5rem;z-index:1}
.table-wrap{overflow-x:auto;margin-bottom:1.5rem}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #d0d0d0;padding:.35rem .5rem;text-align:left;vertical-align:top}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.failed,.refused,.bad{color:#a50e0e;font-weight:600}.published,.unchanged,.good{color:#146c2e}.muted{color:#5f6368}
a.button,button{display:inline-block;padding:.35rem .8rem;border:1px solid #0b57d0;border-radius:.3rem;background:#fff;color:#0b57d0;font:inherit;cursor:pointer;text-decoration:none}
button.primary{background:#0b57d0;color:#fff}
code,pre{background:#f1f3f4;padding:0 .2rem;overflow-wrap:anywhere}pre{padding:.6rem;white-space:pre-wrap;word-break:break-word;max-width:100%;overflow-x:auto}
.notice{padding:.8rem 1rem;background:#fef7e0;border-left:4px solid #b06000;margin:1rem 0}.failed-notice{background:#fce8e6;border-left-color:#a50e0e}
form.search{display:flex;flex-wrap:wrap;gap:.5rem;margin:1rem 0}form.search input[type=search]{flex:1 1 14rem;min-width:0;padding:.4rem;font:inherit;border:1px solid #5f6368;border-radius:.3rem}
label{font-weight:600}input,select{font:inherit}
svg.chart{max-width:100%;height:auto}
@media (max-width:40rem){main{padding:.75rem}header{padding:.5rem .75rem}}
`;

/** A whole console page: navigation, language switch and `body`, in the reader's language. */
export function renderPage(context: ConsoleContext, options: PageOptions): string {
  const nav = textsFor(NAV_TEXTS, context.lang);
  const h = escapeHtml;
  const links = NAV.map(({ section, path }) => {
    const current = section === options.section ? ' aria-current="page"' : '';
    return `<li><a href="${h(context.href(path))}"${current}>${h(nav[section])}</a></li>`;
  }).join('');
  const switchTo = (lang: Lang, label: string) =>
    lang === context.lang
      ? `<span aria-current="true" lang="${lang}">${label}</span>`
      : `<a href="${h(context.href(context.path, { ...context.params, lang }))}" lang="${lang}" hreflang="${lang}">${label}</a>`;
  const refresh = options.refreshSeconds === undefined ? '' : `<meta http-equiv="refresh" content="${options.refreshSeconds}">`;
  return `<!doctype html>
<html lang="${context.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(options.title)} · catalog-bridge</title>${refresh}
<style>${STYLE}</style></head><body>
<a class="skip" href="#main">${h(nav.skip)}</a>
<header><a class="brand" href="${h(context.href('/'))}">catalog-bridge</a>
<nav aria-label="${h(nav.navigation)}"><ul>${links}</ul></nav>
<div class="lang" role="group" aria-label="${h(nav.language)}">${switchTo('cs', 'Česky')}${switchTo('en', 'English')}</div></header>
<main id="main">
<h1>${h(options.title)}</h1>
${options.body}
<p class="muted"><a href="${context.lang === 'cs' ? '/docs/cs/README' : '/docs/'}">${h(nav.docs)}</a></p>
</main></body></html>`;
}

/** Sends a console page with its headers. */
export function sendPage(res: Response, context: ConsoleContext, options: PageOptions, status = 200): void {
  setConsoleHeaders(res);
  res.status(status).type('html').send(renderPage(context, options));
}

const QUERY_PROBLEM_TEXTS = {
  en: { title: 'Something in this address is not right', back: 'Open the page without it' },
  cs: { title: 'V adrese stránky je chyba', back: 'Otevřít stránku bez ní' },
};

/**
 * `400` for a console page whose query is not valid: the page's frame with what is wrong (the validator's
 * words, the parameter named first) and a link to the page without the query, where an API answers JSON.
 */
export function sendQueryProblem(res: Response, context: ConsoleContext, section: ConsoleSection, problem: string): void {
  const texts = textsFor(QUERY_PROBLEM_TEXTS, context.lang);
  const body = `<p class="notice failed-notice" id="query-problem" role="alert"><code>${escapeHtml(problem)}</code></p><p><a href="${escapeHtml(context.href(context.path))}">${escapeHtml(texts.back)}</a></p>`;
  sendPage(res, context, { title: texts.title, section, body }, 400);
}
