import { readFile, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headingSlug } from '../../../src/adapters/docs/doc-pages.js';
import { documentFiles } from './doc-files.js';

/**
 * The documentation stands alone: every relative link of docs/, the README, BENCHMARKS.md, CONTRIBUTING.md and
 * the READMEs under src/ and test/ leads to a file of the repository, and every `#anchor` into a markdown file to a heading or
 * an `id` there (as GitHub and the bridge's /docs pages name them).
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

async function markdownFiles(): Promise<string[]> {
  return (await documentFiles()).map((name) => join(ROOT, name));
}

/** The text without fenced code blocks, whose `#` lines are not headings. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^\s{0,3}(`{3,}|~{3,})[\s\S]*?^\s{0,3}\1/gm, '');
}

/** The text without code, where brackets are not links. */
function prose(markdown: string): string {
  return withoutFences(markdown).replace(/`[^`\n]*`/g, '');
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set([...markdown.matchAll(/\bid="([^"]+)"/g)].map((match) => match[1] ?? ''));
  const seen = new Map<string, number>();
  for (const match of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = headingSlug(match[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

describe('documentation links', () => {
  it('lead to files of the repository and to anchors that exist', async () => {
    const broken: string[] = [];
    const texts = new Map<string, string>();
    const textOf = async (path: string) => {
      let text = texts.get(path);
      if (text === undefined) {
        text = await readFile(path, 'utf8');
        texts.set(path, text);
      }
      return text;
    };
    for (const file of await markdownFiles()) {
      const text = await textOf(file);
      for (const match of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
        const href = match[1] ?? '';
        if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
        const [path = '', fragment] = href.split('#');
        const target = path === '' ? file : join(dirname(file), decodeURIComponent(path));
        const where = `${relative(ROOT, file)} → ${href}`;
        if (!(await exists(target))) {
          broken.push(`${where}: no such file`);
          continue;
        }
        if (fragment !== undefined && target.endsWith('.md') && !anchorsOf(await textOf(target)).has(fragment)) {
          broken.push(`${where}: no such anchor`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
