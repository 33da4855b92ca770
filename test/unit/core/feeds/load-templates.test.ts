import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../../../src/config/config-schema.js';
import { loadConfig } from '../../../../src/config/load-config.js';
import { collectFeed } from '../../../../src/core/feeds/collect-feed.js';
import { loadTemplates, type TemplateFile, TemplateLoadError } from '../../../../src/core/feeds/load-templates.js';
import type { StockSettings } from '../../../../src/core/feeds/stock-policy.js';
import type { TemplateProblem } from '../../../../src/core/feeds/template-problems.js';
import { FIXTURE_CONTEXT, FIXTURE_ITEMS, readTemplateFiles } from './feed-fixture.js';

/** A valid minimal xml template; `patch` replaces top-level keys. */
function xmlTemplate(patch: Record<string, unknown> = {}, name = 'templates/test.json'): TemplateFile {
  return {
    name,
    text: JSON.stringify({
      name: 'test',
      title: 'Test',
      file: 'test.xml',
      kind: 'xml',
      document: {
        name: 'SHOP',
        children: [{ items: { name: 'SHOPITEM', children: [{ name: 'ITEM_ID', value: '{id}', required: true }] } }],
      },
      ...patch,
    }),
  };
}

/** `xmlTemplate` with these children in the per-item element. */
function withItemChildren(children: unknown[], patch: Record<string, unknown> = {}): TemplateFile {
  return xmlTemplate({ document: { name: 'SHOP', children: [{ items: { name: 'SHOPITEM', children } }] }, ...patch });
}

function problemsOf(files: readonly TemplateFile[]): readonly TemplateProblem[] {
  try {
    loadTemplates(files);
  } catch (error) {
    if (error instanceof TemplateLoadError) return error.problems;
    throw error;
  }
  throw new Error('expected a TemplateLoadError');
}

const ITEM_CHILD = 'document.children[0].items.children[0]';

describe('feeds/load-templates', () => {
  it('compiles every shipped template', () => {
    const feeds = loadTemplates(readTemplateFiles());
    expect(feeds).toHaveLength(10);
    const google = feeds.find((feed) => feed.name === 'google');
    expect(google?.contentType).toBe('application/xml; charset=utf-8');
    expect(google?.servesView('all')).toBe(true);
    expect(google?.servesView('PRG')).toBe(true);
    const local = feeds.find((feed) => feed.file === 'local-inventory.tsv');
    expect(local?.servesView('all')).toBe(true);
    expect(local?.servesView('PRG')).toBe(false);
    expect(local?.contentType).toBe('text/tab-separated-values; charset=utf-8');
    const shopify = feeds.find((feed) => feed.file === 'shopify-inventory.csv');
    expect(shopify?.servesView('all')).toBe(true);
    expect(shopify?.servesView('PRG')).toBe(false);
    expect(feeds.find((feed) => feed.file === 'prestashop.csv')?.contentType).toBe('text/csv; charset=utf-8; header=present');
  });

  it('compiles a minimal template', () => {
    const [feed] = loadTemplates([xmlTemplate()]);
    if (feed === undefined) throw new Error('no feed');
    expect(feed.source).toBe('templates/test.json');
    const body = collectFeed(feed.render(FIXTURE_CONTEXT, FIXTURE_ITEMS.slice(0, 1))).body.toString();
    expect(body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<SHOP>\n  <SHOPITEM>\n    <ITEM_ID>a-1001</ITEM_ID>\n  </SHOPITEM>\n</SHOP>\n',
    );
  });

  it('reports invalid JSON with the file and position', () => {
    const problems = problemsOf([{ name: 'templates/broken.json', text: '{\n  "name": "x",\n  oops\n}' }]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: 'templates/broken.json', path: '$' });
    expect(problems[0]?.message).toMatch(/^invalid JSON: /);
  });

  it('names the JSON path of an unknown field and lists the known ones', () => {
    const [problem] = problemsOf([withItemChildren([{ name: 'ITEM_ID', value: '{nmae}' }])]);
    expect(problem?.path).toBe(`${ITEM_CHILD}.value`);
    expect(problem?.message).toMatch(/^unknown field "nmae" in "\{nmae\}" \(known: version, .*name/);
  });

  it('rejects an unknown filter, a missing or extra argument, a bad truncate and an undefined map', () => {
    const problems = problemsOf([
      withItemChildren([
        { name: 'A', value: '{name|shout}' },
        { name: 'B', value: '{name|truncate}' },
        { name: 'C', value: '{name|money:2}' },
        { name: 'D', value: '{name|truncate:abc}' },
        { name: 'E', value: '{availability|map:nope}' },
      ]),
    ]);
    expect(problems.map((problem) => [problem.path, problem.message])).toEqual([
      [
        `document.children[0].items.children[0].value`,
        expect.stringMatching(/^unknown filter "shout" in "\{name\|shout\}" \(known: money,/),
      ],
      [`document.children[0].items.children[1].value`, 'filter "truncate" needs an argument ("truncate:…")'],
      [`document.children[0].items.children[2].value`, 'filter "money" takes no argument, got "2"'],
      [`document.children[0].items.children[3].value`, 'truncate needs a positive whole number of characters, got "abc"'],
      [`document.children[0].items.children[4].value`, 'map "nope" is not defined in "maps" (defined: none)'],
    ]);
  });

  it('rejects bad expression syntax', () => {
    const problems = problemsOf([
      withItemChildren([
        { name: 'A', value: '{name' },
        { name: 'B', value: 'a } b' },
        { name: 'C', value: '{}' },
      ]),
    ]);
    expect(problems.map((problem) => problem.message)).toEqual([
      'unclosed "{" at character 1',
      'unmatched "}" at character 3 (write "}}" for a literal brace)',
      'empty placeholder "{}"',
    ]);
  });

  it('rejects invalid element and attribute names', () => {
    const problems = problemsOf([
      withItemChildren([
        { name: '1abc', value: 'x' },
        { name: 'a b', value: 'x' },
        { name: 'ok', value: 'x', attributes: { 'bad name': 'x', xmlns: 'x' } },
        { name: 'a:b:c', value: 'x' },
      ]),
    ]);
    expect(problems.map((problem) => [problem.path, problem.message])).toEqual([
      [`${ITEM_CHILD}.name`, '"1abc" is not a valid XML element name'],
      ['document.children[0].items.children[1].name', '"a b" is not a valid XML element name'],
      ['document.children[0].items.children[2].attributes["bad name"]', '"bad name" is not a valid XML attribute name'],
      ['document.children[0].items.children[2].attributes.xmlns', 'declare namespaces with "namespaces", not as attributes'],
      ['document.children[0].items.children[3].name', '"a:b:c" is not a valid XML element name (prefix:local)'],
    ]);
  });

  it('rejects a namespace prefix that is not declared on the element or an ancestor', () => {
    const problems = problemsOf([
      withItemChildren([
        { name: 'g:id', value: '{id}' },
        { name: 'x', attributes: { 'g:a': 'b' } },
      ]),
    ]);
    expect(problems.map((problem) => [problem.path, problem.message])).toEqual([
      [`${ITEM_CHILD}.name`, 'namespace prefix "g" is not declared (add it to "namespaces" on this element or an ancestor)'],
      [
        'document.children[0].items.children[1].attributes["g:a"]',
        'namespace prefix "g" is not declared (add it to "namespaces" on this element or an ancestor)',
      ],
    ]);
    // Declared on the root, the same names are fine.
    expect(() =>
      loadTemplates([
        xmlTemplate({
          document: {
            name: 'rss',
            namespaces: { g: 'http://base.google.com/ns/1.0' },
            children: [{ items: { name: 'item', children: [{ name: 'g:id', value: '{id}' }] } }],
          },
        }),
      ]),
    ).not.toThrow();
  });

  it('rejects unknown keys (typos) with the zod message', () => {
    const [problem] = problemsOf([withItemChildren([{ name: 'A', value: '{id}', requried: true }])]);
    expect(problem?.path).toBe(ITEM_CHILD);
    expect(problem?.message).toMatch(/Unrecognized key.*requried/);
  });

  it('checks the scope of fields and rules', () => {
    const problems = problemsOf([
      xmlTemplate({
        document: {
          name: 'SHOP',
          children: [
            { name: 'TITLE', value: '{name}', required: true },
            {
              items: {
                name: 'SHOPITEM',
                children: [
                  { name: 'STOCK', value: '{offer.stock}' },
                  { name: 'DEPOT', each: 'offers', children: [{ name: 'X', each: 'offers' }] },
                ],
              },
            },
          ],
        },
      }),
    ]);
    expect(problems.map((problem) => [problem.path, problem.message])).toEqual([
      ['document.children[0].required', '"required" only applies inside "items"'],
      [
        'document.children[0].value',
        'item field "name" is only available inside "items" (here only feed-wide fields such as currency)',
      ],
      [
        'document.children[1].items.children[0].value',
        'field "offer.stock" is only available inside an element (or feed) with "each": "offers"',
      ],
      ['document.children[1].items.children[1].children[0].each', '"each" cannot be nested'],
    ]);
  });

  it('needs exactly one items node, not at the root', () => {
    expect(problemsOf([xmlTemplate({ document: { name: 'SHOP' } })]).map((problem) => problem.message)).toEqual([
      'the document needs one {"items": {…}} node: the element rendered per item',
    ]);
    expect(problemsOf([xmlTemplate({ document: { items: { name: 'X' } } })]).map((problem) => problem.message)).toEqual([
      'the root must be an element; put {"items": …} among its children',
    ]);
    const twice = { items: { name: 'X', value: '{id}' } };
    expect(problemsOf([xmlTemplate({ document: { name: 'SHOP', children: [twice, twice] } })])).toEqual([
      { file: 'templates/test.json', path: 'document.children[1]', message: 'a document has exactly one "items" node' },
    ]);
  });

  it('refuses conditions on the ancestors of items, which could silently empty a feed', () => {
    const problems = problemsOf([
      xmlTemplate({
        document: {
          name: 'SHOP',
          children: [{ name: 'LIST', when: '{brand}', children: [{ items: { name: 'I', value: '{id}' } }] }],
        },
      }),
    ]);
    expect(problems.map((problem) => [problem.path, problem.message])).toEqual([
      ['document.children[0]', '"when", "unless" and "optional" cannot be used on an element that contains "items"'],
    ]);
  });

  it('rejects an element with both value and children, and a bad pattern', () => {
    const problems = problemsOf([
      withItemChildren([
        { name: 'A', value: 'x', children: [] },
        { name: 'B', value: '{id}', pattern: '(' },
      ]),
    ]);
    expect(problems.map((problem) => [problem.path, problem.message])).toEqual([
      [ITEM_CHILD, 'an element has a "value" or "children", not both (mixed content is not supported)'],
      ['document.children[0].items.children[1].pattern', expect.stringMatching(/^invalid regular expression: /)],
    ]);
  });

  it('rejects duplicate files and names across templates', () => {
    const problems = problemsOf([xmlTemplate({}, 'templates/a.json'), xmlTemplate({}, 'templates/b.json')]);
    expect(problems).toEqual([
      { file: 'templates/b.json', path: 'file', message: '"test.xml" is already served by templates/a.json' },
      { file: 'templates/b.json', path: 'name', message: 'the feed name "test" is already used by templates/a.json' },
    ]);
    expect(
      problemsOf([xmlTemplate({}, 'templates/a.json'), xmlTemplate({ name: 'other', file: 'TEST.xml' }, 'templates/b.json')]),
    ).toEqual([{ file: 'templates/b.json', path: 'file', message: '"TEST.xml" is already served by templates/a.json' }]);
  });

  it('rejects files that clash with built-in routes, and unsafe file names', () => {
    for (const file of ['products.json', 'products.csv', 'products.xlsx', 'changes.json', 'Products.JSON']) {
      expect(problemsOf([xmlTemplate({ file })])).toEqual([
        {
          file: 'templates/test.json',
          path: 'file',
          message: `"${file}" is a built-in route (products.json, products.csv, products.xlsx, changes.json); choose another file name`,
        },
      ]);
    }
    expect(problemsOf([xmlTemplate({ file: '../etc/passwd' })])[0]).toMatchObject({ path: 'file' });
  });

  it('checks the parts of each kind', () => {
    expect(problemsOf([xmlTemplate({ columns: [] })]).map((problem) => problem.path)).toEqual(['columns']);
    const csv = { name: 'c', title: 'C', file: 'c.csv', kind: 'csv' };
    expect(problemsOf([{ name: 'c.json', text: JSON.stringify(csv) }]).map((problem) => problem.message)).toEqual([
      'a csv template needs at least one column',
    ]);
    expect(
      problemsOf([
        {
          name: 'c.json',
          text: JSON.stringify({
            ...csv,
            columns: [
              { header: 'a', value: '{offer.unit}' },
              { header: 'a', value: '{id}', type: 'date' },
            ],
          }),
        },
      ]).map((problem) => [problem.path, problem.message]),
    ).toEqual([
      ['columns[0].value', 'field "offer.unit" is only available inside an element (or feed) with "each": "offers"'],
      ['columns[1].type', expect.stringMatching(/Invalid option/)],
    ]);
  });

  it('stops the start when FEED_STOCK_POLICY names no template or breaks a shipped one, naming the feeds', () => {
    const stock = (feedPolicies: StockSettings['feedPolicies']): StockSettings => ({ unitBuffers: {}, feedPolicies });
    expect(() => loadTemplates(readTemplateFiles(), stock({ gogle: { buffer: 1 } }))).toThrow(
      'FEED_STOCK_POLICY at gogle: names no feed template (the feeds: google-local-inventory, google, heureka-availability, heureka, meta, prestashop, shopify-inventory, shoptet, woocommerce, zbozi)',
    );
    // Google's main feed has no value for limited availability: its map must be given one first.
    expect(() => loadTemplates(readTemplateFiles(), stock({ google: { limitedBelow: 3 } }))).toThrow(
      'templates/google.json at maps.availability.limited_availability: the stock policy sets limitedBelow (the template with FEED_STOCK_POLICY)',
    );
    const feeds = loadTemplates(
      readTemplateFiles(),
      stock({ 'google-local-inventory': { limitedBelow: 5 }, meta: { buffer: 2 } }),
    );
    expect(feeds).toHaveLength(10);
    // The example of the README and .env.example starts with the shipped templates.
    const shown = /e\.g\. (\S+)/.exec(ConfigSchema.shape.FEED_STOCK_POLICY.description ?? '')?.[1] ?? '';
    const example = loadConfig({ FEED_STOCK_POLICY: shown });
    expect(Object.keys(example.feed.stockPolicies)).toEqual(['google', 'google-local-inventory', 'heureka']);
    expect(loadTemplates(readTemplateFiles(), stock(example.feed.stockPolicies))).toHaveLength(10);
  });

  it('lists every problem of every file in one error message', () => {
    let error: unknown;
    try {
      loadTemplates([withItemChildren([{ name: 'A', value: '{nope}' }]), { name: 'templates/x.json', text: '[' }]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TemplateLoadError);
    const message = (error as Error).message;
    expect(message).toMatch(/^Invalid feed templates \(2 problems\):\n/);
    expect(message).toContain(`  templates/test.json at ${ITEM_CHILD}.value: unknown field "nope"`);
    expect(message).toContain('  templates/x.json at $: invalid JSON: ');
  });
  it('writes a csv with another delimiter: quoted where a value holds it, numbers with a dot', () => {
    const template = (patch: Record<string, unknown>): TemplateFile => ({
      name: 'templates/semi.json',
      text: JSON.stringify({
        name: 'semi',
        title: 'Semicolons',
        file: 'semi.csv',
        kind: 'csv',
        columns: [
          { header: 'name;text', value: '{name}' },
          { header: 'price', value: '{price}', type: 'money' },
          { header: 'quote', value: 'say "hi"' },
        ],
        ...patch,
      }),
    });
    // The soap: "Mýdlo; levandule, 100 g" at 35.
    const items = FIXTURE_ITEMS.filter((item) => item.id === 'a/1010 x');
    const render = (patch: Record<string, unknown>) => {
      const [feed] = loadTemplates([template(patch)]);
      if (feed === undefined) throw new Error('no feed');
      return collectFeed(feed.render(FIXTURE_CONTEXT, items)).body.toString('utf8');
    };
    expect(render({ delimiter: ';' })).toBe('"name;text";price;quote\r\n"Mýdlo; levandule, 100 g";35.00;"say ""hi"""\r\n');
    expect(render({ delimiter: '|' })).toBe('name;text|price|quote\r\nMýdlo; levandule, 100 g|35.00|"say ""hi"""\r\n');
    expect(render({})).toBe('name;text,price,quote\r\n"Mýdlo; levandule, 100 g",35.00,"say ""hi"""\r\n');
    expect(render({ delimiter: ',', dialect: 'rfc4180' })).toBe(render({}));

    expect(
      problemsOf([template({ delimiter: ';', dialect: 'excel' })]).map((problem) => [problem.path, problem.message]),
    ).toEqual([['delimiter', '"delimiter" applies to the rfc4180 dialect only (excel always writes ";")']]);
    expect(problemsOf([template({ delimiter: ';', kind: 'tsv', file: 'semi.tsv' })]).map((problem) => problem.message)).toEqual([
      '"delimiter" applies to csv templates only (tsv is always TAB)',
    ]);
    expect(problemsOf([xmlTemplate({ delimiter: ';' })]).map((problem) => problem.message)).toEqual([
      '"delimiter" applies to csv templates only',
    ]);
    expect(problemsOf([template({ delimiter: '\t' })]).map((problem) => problem.path)).toEqual(['delimiter']);
  });
});
