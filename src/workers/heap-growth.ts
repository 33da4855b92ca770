import { setFlagsFromString } from 'node:v8';

/**
 * How far past what a full GC left alive a heap may grow before the next one: 1.5×. V8 sizes that factor by
 * the machine (up to 4× where the heap may reach gigabytes), and every catalog version made by a sale
 * leaves a dead copy of the products array (800 KB at 100,000 products) that only a full GC frees: during
 * 2,000 sales at 50/s the process climbed ~400 MiB between collections (bench/serve-day.ts, decision 0017).
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * Sets the heap growing factor for every isolate of the process (V8's flags are process-wide, so the worker
 * threads started after it have it too). Called first thing by the server's entry (`main.ts`; `cli.ts serve`
 * runs it too). Not by the one-shot `sync --once`: no sales pile up versions there, and the sync's thread,
 * whose heap grows all sync long, only pays for it (decision 0017).
 */
export function limitHeapGrowth(percent = HEAP_GROWING_PERCENT): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}
