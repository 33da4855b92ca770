import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDocPages,
  headingSlug,
  renderDocPage,
  renderDocPages,
  servedHref,
} from '../../../../src/adapters/docs/doc-pages.js';

describe('adapters/docs/doc-pages', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'doc-pages-'));
    await mkdir(join(dir, 'decisions'));
    await writeFile(
      join(dir, 'codes.md'),
      [
        '# Codes',
        '',
        'See [the guide](guide.md#step-2-the-pos), [a decision](decisions/0001-x.md), [the README](../README.md),',
        '[the web](https://example.com/x) and [below](#row-unmatched).',
        '',
        '### <a id="row-unmatched"></a>`row-unmatched`',
        '',
        'A row <b>without</b> an article.',
        '',
        '```sh',
        '# not a heading',
        'echo hi',
        '```',
      ].join('\n'),
    );
    await writeFile(join(dir, 'guide.md'), '# Guide\n\n## Step 2: the POS\n\ntext\n\n## Step 2: the POS\n\nagain\n');
    await writeFile(join(dir, 'decisions', '0001-x.md'), '# 0001 X\n\nBack to [codes](../codes.md#row-unmatched).\n');
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives headings the anchors GitHub gives them', () => {
    expect(headingSlug('Rule 7: availability, and the `all` view')).toBe('rule-7-availability-and-the-all-view');
    expect(headingSlug('4. `PUBLIC_BASE_URL`, HTTPS and a reverse proxy')).toBe('4-public_base_url-https-and-a-reverse-proxy');
    expect(headingSlug('Heureka: `heureka.xml`')).toBe('heureka-heurekaxml');
  });

  it('rewrites links between pages to their routes and leaves others', () => {
    const pages = new Set(['codes', 'guide', 'decisions/0001-x']);
    expect(servedHref('guide.md#step', 'codes', pages)).toBe('guide#step');
    expect(servedHref('decisions/0001-x.md', 'codes', pages)).toBe('decisions/0001-x');
    expect(servedHref('../codes.md#a', 'decisions/0001-x', pages)).toBe('../codes#a');
    expect(servedHref('#a', 'codes', pages)).toBe('#a');
    expect(servedHref('https://example.com/', 'codes', pages)).toBe('https://example.com/');
    expect(servedHref('../README.md', 'codes', pages)).toBeUndefined();
    expect(servedHref('../../../../src/app/app.ts', 'decisions/0001-x', pages)).toBeUndefined();
  });

  it('lists the pages and renders one as a whole HTML document with working links and anchors', async () => {
    const rendered = await renderDocPages(dir);
    expect(Object.keys(rendered).sort()).toEqual(['', 'codes', 'decisions/0001-x', 'guide']);
    const docs = createDocPages(async () => rendered);
    const html = (await docs.page('codes')) ?? '';
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<title>Codes — catalog-bridge</title>');
    expect(html).toContain('<a href="guide#step-2-the-pos">the guide</a>');
    expect(html).toContain('<a href="decisions/0001-x">a decision</a>');
    expect(html).toContain('<span title="in the repository: ../README.md">the README</span>');
    expect(html).toContain('<a href="https://example.com/x">the web</a>');
    expect(html).toContain('<a id="row-unmatched"></a>');
    expect(html).toContain('<h3><a id="row-unmatched"></a><code>row-unmatched</code></h3>');
    expect(html).toContain('# not a heading');
    expect(html).toContain('<a href="../">status page</a>');
    const guide = (await docs.page('guide')) ?? '';
    expect(guide).toContain('<h2 id="step-2-the-pos">');
    expect(guide).toContain('<h2 id="step-2-the-pos-1">');
    const decision = (await docs.page('decisions/0001-x')) ?? '';
    expect(decision).toContain('<a href="../codes#row-unmatched">codes</a>');
    expect(decision).toContain('<a href="../../">status page</a>');
  });

  it('marks the Czech guides (docs/cs/) as Czech, the rest as English', () => {
    const pages = new Set(['cs/README', 'guide']);
    expect(renderDocPage('# Průvodce', 'cs/README', pages)).toContain('<html lang="cs">');
    expect(renderDocPage('# Průvodce', 'cs/README', pages)).toContain('<a href="../../">konzole</a>');
    expect(renderDocPage('# Guide', 'guide', pages)).toContain('<html lang="en">');
  });

  it('answers undefined for an unknown page, and an index of every page', async () => {
    const docs = createDocPages(() => renderDocPages(dir));
    expect(await docs.page('nope')).toBeUndefined();
    expect(await docs.page('../codes')).toBeUndefined();
    expect(await docs.page('constructor')).toBeUndefined();
    expect(await docs.page('')).toContain('<a href="decisions/0001-x">decisions/0001-x</a>');
  });

  it('has only an index saying so when the folder was not shipped', async () => {
    const rendered = await renderDocPages(join(dir, 'missing'));
    expect(Object.keys(rendered)).toEqual(['']);
    expect(rendered['']).toContain('shipped without');
  });

  it('renders once for every request, and again after a failed render', async () => {
    let calls = 0;
    const docs = createDocPages(async () => {
      calls += 1;
      if (calls === 1) throw new Error('worker died');
      return { '': 'index' };
    });
    await expect(docs.page('')).rejects.toThrow('worker died');
    expect(await Promise.all([docs.page(''), docs.page(''), docs.page('x')])).toEqual(['index', 'index', undefined]);
    expect(calls).toBe(2);
  });
});
