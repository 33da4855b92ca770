import { readdir, readFile } from 'node:fs/promises';
import { join, posix, sep } from 'node:path';
import { Marked, type Tokens } from 'marked';

/**
 * The project's own `docs/` folder as HTML pages (`report-codes.md` → page `report-codes`,
 * `decisions/0003-feed-templates.md` → page `decisions/0003-feed-templates`, the index → page `''`), so
 * that the status page can link a report code to its explanation on a server without internet access,
 * in the words of the version that runs (docs/report-codes.md says why).
 *
 * `renderDocPages` renders the whole folder at once. It costs marked some 400 ms and single pages tens of
 * milliseconds while its code is cold, far too long for the main thread once the server listens, so the
 * app runs it in a worker thread (`workers/create-doc-pages.ts`); `createDocPages` only keeps the result.
 */
export interface DocPages {
  /** A page as a whole HTML document (`''`: the index), or `undefined` when there is no such page. */
  page(name: string): Promise<string | undefined>;
}

/** Every page of a folder by name, as `renderDocPages` gives them. */
export type RenderedDocs = Readonly<Record<string, string>>;

const STYLE = `body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:52rem;padding:0 1rem;color:#222;line-height:1.5}
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
code{background:#f3f3f3;padding:0 .2rem}pre{background:#f6f6f6;padding:.75rem;overflow:auto}pre code{background:none;padding:0}
:target{background:#fff8e1}.nav{font-size:.9rem;color:#666}`;

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);

/** `docs/` folder → page names (posix, without `.md`); none when the folder is missing (docs not shipped). */
async function listPages(dir: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(dir, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.endsWith('.md'))
    .map((entry) => entry.split(sep).join('/').slice(0, -'.md'.length))
    .sort();
}

/**
 * Where a link of page `from` leads when served: another page of the folder (relative, so the pages work
 * under any path prefix), an absolute URL or fragment as it is, or `undefined` for a file outside the
 * folder (source files, the README), which the bridge does not serve.
 */
export function servedHref(href: string, from: string, pages: ReadonlySet<string>): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#') || href.startsWith('/')) return href;
  const hash = href.indexOf('#');
  const path = hash < 0 ? href : href.slice(0, hash);
  const fragment = hash < 0 ? '' : href.slice(hash);
  const target = posix.normalize(posix.join(posix.dirname(from), path));
  const name = target.endsWith('.md') ? target.slice(0, -'.md'.length) : target;
  if (!pages.has(name)) return undefined;
  const relative = posix.relative(posix.dirname(from), name);
  return `${relative === '' ? posix.basename(name) : relative}${fragment}`;
}

/**
 * The anchor GitHub gives a heading (lower case, punctuation dropped, spaces as dashes), so that links
 * such as `catalog-rules.md#rule-7-availability-and-the-all-view` work on GitHub and here alike.
 */
export function headingSlug(text: string): string {
  return text
    .replace(/<[^>]*>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

function createRenderer(from: string, pages: ReadonlySet<string>): Marked {
  const marked = new Marked({ gfm: true, async: false });
  const slugs = new Map<string, number>();
  marked.use({
    renderer: {
      heading(token: Tokens.Heading): string {
        const inner = this.parser.parseInline(token.tokens);
        // A heading with an anchor of its own (`### <a id="row-unmatched"></a>…`) needs no second id.
        if (/<a\s+id=/.test(token.text)) return `<h${token.depth}>${inner}</h${token.depth}>\n`;
        const base = headingSlug(token.text);
        const seen = slugs.get(base) ?? 0;
        slugs.set(base, seen + 1);
        const id = seen === 0 ? base : `${base}-${seen}`;
        return `<h${token.depth} id="${escapeHtml(id)}">${inner}</h${token.depth}>\n`;
      },
      link(token: Tokens.Link): string {
        const text = this.parser.parseInline(token.tokens);
        const href = servedHref(token.href, from, pages);
        if (href === undefined) return `<span title="${escapeHtml(`in the repository: ${token.href}`)}">${text}</span>`;
        const title = token.title ? ` title="${escapeHtml(token.title)}"` : '';
        return `<a href="${escapeHtml(href)}"${title}>${text}</a>`;
      },
    },
  });
  return marked;
}

function titleOf(markdown: string, name: string): string {
  const heading = /^#\s+(.+)$/m.exec(markdown)?.[1];
  return heading === undefined ? name : heading.replace(/[`*_]/g, '').trim();
}

/** The Czech guides (docs/cs/) are marked and framed in Czech, for screen readers and translation tools. */
const NAV_TEXTS = {
  en: { status: 'status page', documentation: 'documentation' },
  cs: { status: 'konzole', documentation: 'dokumentace' },
} as const;

/** One page as a whole HTML document. */
export function renderDocPage(markdown: string, name: string, pages: ReadonlySet<string>): string {
  const body = createRenderer(name, pages).parse(markdown) as string;
  const up = '../'.repeat(name.split('/').length);
  const index = posix.relative(posix.dirname(name), '.');
  const lang = name.startsWith('cs/') ? 'cs' : 'en';
  const nav = NAV_TEXTS[lang];
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(titleOf(markdown, name))} — catalog-bridge</title><style>${STYLE}</style></head><body>
<p class="nav"><a href="${up}">${nav.status}</a> · <a href="${index === '' ? './' : `${index}/`}">${nav.documentation}</a> · <code>docs/${escapeHtml(name)}.md</code></p>
${body}
</body></html>`;
}

function renderIndex(names: readonly string[]): string {
  const items = names.map((name) => `<li><a href="${escapeHtml(name)}">${escapeHtml(name)}</a></li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Documentation — catalog-bridge</title><style>${STYLE}</style></head><body>
<p class="nav"><a href="../">status page</a></p><h1>Documentation</h1>
${names.length === 0 ? '<p>This installation was shipped without its <code>docs/</code> folder.</p>' : `<ul>${items}</ul>`}
</body></html>`;
}

/** Every page of the folder `dir`, and its index (page `''`). */
export async function renderDocPages(dir: string): Promise<RenderedDocs> {
  const names = await listPages(dir);
  const known = new Set(names);
  const rendered: Record<string, string> = { '': renderIndex(names) };
  for (const name of names) {
    const markdown = await readFile(`${join(dir, ...name.split('/'))}.md`, 'utf8');
    rendered[name] = renderDocPage(markdown, name, known);
  }
  return rendered;
}

/**
 * The pages of `render()` (the whole folder, rendered elsewhere), asked for on the first request and kept;
 * a failed render is tried again on the next request.
 */
export function createDocPages(render: () => Promise<RenderedDocs>): DocPages {
  let pages: Promise<RenderedDocs> | undefined;
  return {
    async page(name) {
      if (pages === undefined) {
        const rendering = render();
        pages = rendering;
        rendering.catch(() => {
          if (pages === rendering) pages = undefined;
        });
      }
      const all = await pages;
      return Object.hasOwn(all, name) ? all[name] : undefined;
    },
  };
}
