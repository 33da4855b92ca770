import { readdir, readFile } from 'node:fs/promises';
import { join, posix, sep } from 'node:path';
import { Marked, type Tokens } from 'marked';
import { createSlicer } from '../../core/async/create-slicer.js';

/**
 * The project's own `docs/` folder as HTML pages (`report-codes.md` → page `report-codes`,
 * `decisions/0003-feed-templates.md` → page `decisions/0003-feed-templates`), so that the status page can
 * link a report code to its explanation on a server without internet access, in the words of the version
 * that runs. A page is rendered on its first request and kept.
 *
 * Rendering a page of ~40 KB takes marked 20-60 ms, too long for the main thread once the server listens,
 * so a page is rendered one section (heading) at a time, yielding to the event loop between slices.
 */
export interface DocPages {
  /** Page names, sorted; empty when the folder is missing (docs not shipped). */
  names(): Promise<readonly string[]>;
  /** A page as a whole HTML document, or `undefined` when there is no such page. */
  page(name: string): Promise<string | undefined>;
}

const STYLE = `body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:52rem;padding:0 1rem;color:#222;line-height:1.5}
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
code{background:#f3f3f3;padding:0 .2rem}pre{background:#f6f6f6;padding:.75rem;overflow:auto}pre code{background:none;padding:0}
:target{background:#fff8e1}.nav{font-size:.9rem;color:#666}`;

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);

/** `docs/` folder → page names (posix, without `.md`). */
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
 * The markdown cut before each heading outside fenced code: sections render alone to the same HTML
 * (the docs use no reference-style links, the one construct that spans sections).
 */
export function splitSections(markdown: string): string[] {
  const sections: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker;
      else if (marker.startsWith(fence)) fence = undefined;
    }
    if (fence === undefined && marker === undefined && /^#{1,6}\s/.test(line) && current.length > 0) {
      sections.push(current.join('\n'));
      current = [];
    }
    current.push(line);
  }
  sections.push(current.join('\n'));
  return sections;
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
  const marked = new Marked({ gfm: true });
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

async function renderPage(markdown: string, name: string, pages: ReadonlySet<string>): Promise<string> {
  const marked = createRenderer(name, pages);
  const slicer = createSlicer();
  const parts: string[] = [];
  for (const section of splitSections(markdown)) {
    parts.push(await marked.parse(section, { async: true }));
    await slicer.next();
  }
  const up = '../'.repeat(name.split('/').length);
  const index = posix.relative(posix.dirname(name), '.') || '.';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(titleOf(markdown, name))} — catalog-bridge</title><style>${STYLE}</style></head><body>
<p class="nav"><a href="${up}">status page</a> · <a href="${index === '.' ? './' : `${index}/`}">documentation</a> · <code>docs/${escapeHtml(name)}.md</code></p>
${parts.join('\n')}
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

/** Pages of the folder `dir`; the index is the page named `''`. */
export function createDocPages(dir: string): DocPages {
  let listed: Promise<string[]> | undefined;
  const rendered = new Map<string, Promise<string>>();
  const names = () => {
    listed ??= listPages(dir);
    return listed;
  };
  return {
    names,
    async page(name) {
      const all = await names();
      if (name === '') return renderIndex(all);
      if (!all.includes(name)) return undefined;
      let page = rendered.get(name);
      if (page === undefined) {
        page = readFile(`${join(dir, ...name.split('/'))}.md`, 'utf8').then((text) => renderPage(text, name, new Set(all)));
        rendered.set(name, page);
        page.catch(() => rendered.delete(name));
      }
      return page;
    },
  };
}
