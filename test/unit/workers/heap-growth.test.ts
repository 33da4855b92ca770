import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('../../../src/workers/heap-growth.ts', import.meta.url));

describe('workers/heap-growth: the heap growing factor the process entries set', () => {
  it("sets a flag this Node's V8 knows (V8 would only complain about an unknown one on stderr, and go on)", () => {
    const script = `import(${JSON.stringify(MODULE)}).then(({ limitHeapGrowth }) => limitHeapGrowth())`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' });

    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
  });

  it('is a flag listed by --v8-options', () => {
    const run = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });

    expect(run.stdout).toContain('--heap-growing-percent');
  });
});
