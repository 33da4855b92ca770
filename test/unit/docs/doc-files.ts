import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root. */
export const DOC_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Every document a person reads, relative to the root: the README, CHANGELOG, BENCHMARKS, CONTRIBUTING,
 * docs/ (the Czech guides included), deploy/ and the folder READMEs under src/ and test/.
 */
export async function documentFiles(): Promise<string[]> {
  const markdown = async (dir: string, only?: string) =>
    (await readdir(join(DOC_ROOT, dir), { recursive: true }))
      .filter((name) => (only === undefined ? name.endsWith('.md') : name.endsWith(only)))
      .map((name) => join(dir, name));
  return [
    'README.md',
    'CHANGELOG.md',
    'BENCHMARKS.md',
    'CONTRIBUTING.md',
    ...(await markdown('docs')),
    ...(await markdown('deploy')),
    ...(await markdown('src', 'README.md')),
    ...(await markdown('test', 'README.md')),
  ].filter((name) => existsSync(join(DOC_ROOT, name)));
}

/** The code spans and fenced blocks of a document: where settings, commands and routes are written. */
export function codeOf(markdown: string): string[] {
  const fence = /^\s{0,3}(`{3,}|~{3,})[^\n]*\n([\s\S]*?)^\s{0,3}\1/gm;
  const fences = [...markdown.matchAll(fence)].map((match) => match[2] ?? '');
  const spans = [...markdown.replace(fence, '').matchAll(/`([^`\n]+)`/g)].map((match) => match[1] ?? '');
  return [...fences, ...spans];
}
