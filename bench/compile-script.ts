import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Compiles a benchmark script and the sources it imports with tsc (the project's compiler options) into
 * a temp dir inside the repository (so `node_modules` resolves), for a child run by plain `node` without
 * tsx's loader, as `npm start` runs `node dist/main.js`. tsx's loader (a second isolate in a worker
 * thread) adds ~35 MB to the RSS of an idle process. Worker-thread entries come along through the type
 * imports of their pools; the file their threads start (`thread-entry.cjs`, not compiled) is copied.
 * Returns the compiled script; remove `join(result, '..', '..')` when done.
 */
export function compileScript(script: string): string {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const name = basename(script, '.ts');
  const outDir = mkdtempSync(join(ROOT, '.tmp', `${name}-build-`));
  const tsconfig = join(outDir, 'tsconfig.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.json'),
      compilerOptions: { rootDir: ROOT, outDir, sourceMap: false, noEmit: false },
      files: [script],
      include: [],
    }),
  );
  process.stderr.write(`compiling ${relative(ROOT, script)} into ${outDir}\n`);
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], { stdio: 'inherit' });
  const threadEntry = join('src', 'workers', 'thread-entry.cjs');
  mkdirSync(join(outDir, 'src', 'workers'), { recursive: true });
  copyFileSync(join(ROOT, threadEntry), join(outDir, threadEntry));
  return join(outDir, 'bench', `${name}.js`);
}
