import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The repository is read without anything beside it: no comment, document or test cites the product
 * specification, research notes or guides that live outside it. What they said is written in docs/.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

const OUTSIDE_CITATIONS: readonly RegExp[] = [
  /\bSPEC\b/,
  /\.\.\/shared\//,
  /\bshared\/(?:guides|reference|SPEC)/,
  /\breference\/(?:pos-interface|upstream|feeds|channel-apis)\.md/,
  /\bguides\/architecture/,
  /\barchitecture guide\b/i,
  /\bupstream\.md\b|\bupstream (?:§|quirk)/,
];

const TEXT_FILE = /\.(?:ts|mts|mjs|js|json|md|xml|csv|txt|tsv|yml|yaml|service|timer)$|(?:^|\/)(?:Dockerfile|\.dockerignore)$/;

async function files(): Promise<string[]> {
  const found = ['README.md', 'CHANGELOG.md', 'BENCHMARKS.md', 'Dockerfile', 'package.json'].map((name) => join(ROOT, name));
  for (const dir of ['src', 'test', 'bench', 'docs', 'deploy', 'templates', 'scripts']) {
    const entries = await readdir(join(ROOT, dir), { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      const path = join(entry.parentPath, entry.name);
      if (entry.isFile() && TEXT_FILE.test(path) && path !== SELF) found.push(path);
    }
  }
  return found;
}

describe('the repository stands alone', () => {
  it('cites no specification, reference or guide from outside it', async () => {
    const found: string[] = [];
    for (const path of await files()) {
      const lines = (await readFile(path, 'utf8')).split('\n');
      lines.forEach((line, index) => {
        if (OUTSIDE_CITATIONS.some((pattern) => pattern.test(line))) {
          found.push(`${relative(ROOT, path)}:${index + 1}: ${line.trim()}`);
        }
      });
    }
    expect(found, 'write what is relied on into docs/ and cite that').toEqual([]);
  });
});
