import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../../src/config/config-schema.js';
import { codeOf, DOC_ROOT, documentFiles } from './doc-files.js';

/**
 * The documents name only what exists: every setting (an upper-case `NAME` of a settings family, or a
 * `NAME=` anywhere) is in the configuration schema, every `npm run X` a script of package.json, every
 * command of `catalog-bridge` (or `dist/cli.js`, `npm run cli --`) one the command has. Routes are checked
 * against a running bridge in test/integration/http/doc-routes.test.ts.
 */

/** Environment variables the documents may name that are not the bridge's settings: Node's, the C library's, the tests'. */
const OTHER_VARIABLES = new Set([
  'NODE_ENV',
  'NODE_OPTIONS',
  'TZ',
  'MALLOC_ARENA_MAX',
  'MALLOC_MMAP_THRESHOLD_',
  'MALLOC_CONF',
  'LD_PRELOAD',
  'UV_THREADPOOL_SIZE',
  'PATH',
  'HOME',
  'CI',
  'FEED_PROPERTY_RUNS',
  'REDIS_SERVER',
  'CHROMIUM_PATH',
  'BENCH_QUICK',
  'SERVE_DAY_NODE_ARGS',
  'FULL_SYNC_NODE_ARGS',
  'UPDATE_GOLDEN',
  'NODE_IMAGE',
]);

/**
 * Where an upper-case name of a settings family is read as a setting: the guides. Decisions, BENCHMARKS
 * and the folder READMEs also name the code's constants (`FEED_PART_ITEMS`); there only `NAME=` counts.
 */
function isGuide(file: string): boolean {
  return (
    !file.startsWith('docs/decisions/') && !/^(src|test)\//.test(file) && !['BENCHMARKS.md', 'CONTRIBUTING.md'].includes(file)
  );
}

/** The prefixes of the bridge's settings: an upper-case name with one of them is read as a setting. */
const SETTING_PREFIXES = [...new Set(CONFIG_VARIABLES.map((name) => name.split('_')[0] ?? name))];

/** The codes the bridge reports (ids of docs/report-codes.md) and its metric names share those prefixes. */
async function reportCodes(): Promise<Set<string>> {
  const text = await readFile(join(DOC_ROOT, 'docs/report-codes.md'), 'utf8');
  return new Set([...text.matchAll(/\bid="([A-Z][A-Z0-9_]+)"/g)].map((match) => match[1] ?? ''));
}

function settingsNamed(code: string, codes: ReadonlySet<string>, guide = true): string[] {
  const names = new Set<string>();
  for (const match of code.matchAll(/(?<![\w$.{-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+_?)(?![\w(])/g)) {
    const name = match[1] ?? '';
    const assigned = code.slice((match.index ?? 0) + name.length).startsWith('=');
    const family = guide && SETTING_PREFIXES.includes(name.split('_')[0] ?? '');
    if ((assigned || family) && !codes.has(name) && !name.startsWith('CATALOG_BRIDGE_')) names.add(name);
  }
  return [...names];
}

function scriptsNamed(code: string): string[] {
  return [...code.matchAll(/\bnpm run ([\w:-]+)/g)].map((match) => match[1] ?? '');
}

/** `catalog-bridge X` where a command line starts (the service and user share the name), `dist/cli.js X`, `npm run cli -- X`. */
function commandsNamed(code: string): string[] {
  return [...code.matchAll(/(?:(?:^|&&|;|\$)\s*catalog-bridge|dist\/cli\.js|npm run cli --)[ \t]+(--?[\w-]+|[a-z][\w-]*)/gm)].map(
    (match) => match[1] ?? '',
  );
}

const COMMANDS = new Set(['sync', 'serve', 'backup', 'restore', '--version', 'version', '--help', '-h', 'help']);

describe('names in the documents', () => {
  it('finds settings, scripts and commands (the scan works)', () => {
    const codes = new Set(['FEED_NOT_FOUND']);
    expect(settingsNamed('POS_API_KEY=abc FEED_NOT_FOUND `FEED_TOKEN` NODE_ENV=production OTHER_THING', codes)).toEqual([
      'POS_API_KEY',
      'FEED_TOKEN',
      'NODE_ENV',
    ]);
    expect(scriptsNamed('npm run build && npm run config:example')).toEqual(['build', 'config:example']);
    expect(commandsNamed('node dist/cli.js backup --out x; catalog-bridge --version; npm run cli -- sync --once')).toEqual([
      'backup',
      '--version',
      'sync',
    ]);
  });

  it('are settings of the configuration, scripts of package.json and commands of catalog-bridge', async () => {
    const codes = await reportCodes();
    const settings = new Set<string>(CONFIG_VARIABLES);
    const pkg = JSON.parse(await readFile(join(DOC_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const unknown: string[] = [];
    for (const file of await documentFiles()) {
      const code = codeOf(await readFile(join(DOC_ROOT, file), 'utf8')).join('\n');
      for (const name of settingsNamed(code, codes, isGuide(file))) {
        if (!settings.has(name) && !OTHER_VARIABLES.has(name)) unknown.push(`${file}: setting ${name}`);
      }
      for (const script of scriptsNamed(code)) {
        if (pkg.scripts[script] === undefined) unknown.push(`${file}: npm run ${script}`);
      }
      for (const command of commandsNamed(code)) {
        if (!COMMANDS.has(command)) unknown.push(`${file}: catalog-bridge ${command}`);
      }
    }
    expect(unknown).toEqual([]);
  });
});
