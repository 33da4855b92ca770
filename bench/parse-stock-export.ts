/**
 * Benchmark of the stock export parse at the sync bar's size (docs/quality-bars.md: 100,000 articles × 5 units).
 *
 *   npx tsx bench/parse-stock-export.ts [--articles 100000] [--units 5]
 *
 * Writes an all-units export (`;`, decimal comma, CRLF, BOM, Czech header, a quoted name now and then)
 * to a temp file and parses it in a fresh child process, reporting wall time, CPU time, peak RSS and the
 * heap the rows keep alive after a full GC.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseStockExport } from '../src/adapters/pos/stock-export.js';
import { numberArgument } from './bench-args.js';

function generate(file: string, articles: number, units: number): void {
  const lines = ['\uFEFFStředisko;Kód;PLU;EAN;Název;Množství;MJ'];
  for (let unit = 1; unit <= units; unit += 1) {
    for (let i = 1; i <= articles; i += 1) {
      const name = i % 10 === 0 ? `"Káva ""${i}""; 1 kg"` : `Zboží ${i}`;
      const quantity = `${(i % 2000) - 5},${String(i % 1000).padStart(3, '0')}`;
      lines.push(`U${unit};KOD-${i};${i};859${String(i).padStart(10, '0')};${name};${quantity};ks`);
    }
  }
  writeFileSync(file, `${lines.join('\r\n')}\r\n`);
}

function child(file: string): void {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const { rows, summary } = parseStockExport(readFileSync(file));
  const cpu = process.cpuUsage(cpuStarted);
  const wallMs = performance.now() - started;
  // What the rows keep alive once the input is gone (the child runs with --expose-gc).
  (globalThis as { gc?: () => void }).gc?.();
  const retainedMb = process.memoryUsage().heapUsed / 1024 / 1024;
  console.log(
    JSON.stringify({
      rows: rows.length,
      retainedHeapMb: Math.round(retainedMb),
      skipped: summary.skippedCount,
      wallMs: Math.round(wallMs),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
}

function main(): void {
  const articles = numberArgument('articles', 100_000);
  const units = numberArgument('units', 5);
  const dir = mkdtempSync(join(tmpdir(), 'stock-export-bench-'));
  const file = join(dir, 'stock.csv');
  try {
    generate(file, articles, units);
    const sizeMb = statSync(file).size / 1024 / 1024;
    const result = spawnSync(
      process.execPath,
      [...process.execArgv, '--expose-gc', fileURLToPath(import.meta.url), '--child', file],
      {
        encoding: 'utf8',
      },
    );
    if (result.status !== 0) throw new Error(`child failed: ${result.stderr}`);
    console.log(`node ${process.version}, ${articles} articles × ${units} units, ${sizeMb.toFixed(1)} MiB`);
    console.log(result.stdout.trim());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const childIndex = process.argv.indexOf('--child');
if (childIndex >= 0) child(process.argv[childIndex + 1] ?? '');
else main();
