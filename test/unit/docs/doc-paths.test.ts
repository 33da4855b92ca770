import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { documentFiles } from './doc-files.js';

/**
 * The documents follow the tree: every `src/…` or `test/…` file path (one with an extension) named in the
 * README, BENCHMARKS.md, CONTRIBUTING.md, docs/ or a folder README under src/ and test/ exists. Paths with a
 * wildcard, a placeholder (`<name>`, `{unit}`) or `…` are patterns, not files, and are skipped; so are paths
 * inside a URL or another path (`https://…/src/…`, `./src/…` of another project).
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A path that begins at `src/` or `test/` (not inside a longer path or URL) and ends in an extension. */
const PATH = /(?<![\w./\-~])(?:src|test)\/[\w./\-*…{}<>]*\.[A-Za-z]\w*/g;
const PATTERN = /[*…{}<>]/;

async function markdownFiles(): Promise<string[]> {
  return documentFiles();
}

/** Whether `path` names a file of the repository (a compiled `.js` name counts for its `.ts` source). */
function exists(path: string): boolean {
  return existsSync(join(ROOT, path)) || (path.endsWith('.js') && existsSync(join(ROOT, `${path.slice(0, -3)}.ts`)));
}

function namedPaths(markdown: string): string[] {
  const found = new Set<string>();
  for (const match of markdown.matchAll(PATH)) {
    const path = match[0].replace(/[.,;:]+$/, '');
    if (!PATTERN.test(path)) found.add(path);
  }
  return [...found];
}

describe('paths named in the documents', () => {
  it('finds paths and skips patterns', () => {
    expect(
      namedPaths(
        'See `src/app/start-app.ts`, src/core/**/*.ts, `test/e2e/<name>.browser.e2e.test.ts`, src/… and ' +
          'https://github.com/x/y/blob/main/src/Core/A.php; the folder src/app/ has no extension.',
      ),
    ).toEqual(['src/app/start-app.ts']);
  });

  it('exist in the tree', async () => {
    const missing: string[] = [];
    for (const file of await markdownFiles()) {
      const text = await readFile(join(ROOT, file), 'utf8');
      for (const path of namedPaths(text)) {
        if (!exists(path)) missing.push(`${file}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
