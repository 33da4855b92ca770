import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { entryArgs } from '../../helpers/entry-args.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function runMain(env: Record<string, string>) {
  return spawnSync(process.execPath, entryArgs('main'), {
    cwd: root,
    // A clean environment: no .env values or CI variables leak into what is tested.
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', DOTENV_CONFIG_PATH: '/nonexistent/.env', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe('main with an invalid configuration', () => {
  it('exits 2 and prints one line per problem, naming each variable', () => {
    const result = runMain({ PORT: 'eighty', POS_BASE_URL: 'https://pos.example.test', STORE_URL: 'ftp://x' });

    expect(result.status).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toBe('catalog-bridge: invalid configuration');
    expect(
      lines
        .slice(1)
        .map((line) => line.trim().split(':')[0])
        .sort(),
    ).toEqual(['PORT', 'POS_API_KEY', 'STORE_URL']);
    expect(result.stdout).toBe('');
  });
});
