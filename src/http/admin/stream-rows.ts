import type { Response } from 'express';
import { createSlicer } from '../../core/async/create-slicer.js';
import { drained } from '../drained.js';

/** Items joined into one write: few enough to stay well under a slice, many enough to keep writes few. */
const BATCH = 128;

/**
 * Writes `count` lines made by `lineOf` to `res` in slices (docs/quality-bars.md: no synchronous stretch
 * over ~10 ms on a 100,000-product catalog) and with backpressure (a slow client holds its own lines,
 * never the whole body in memory). Stops when the client goes away.
 */
export async function streamLines(
  res: Response,
  count: number,
  lineOf: (index: number) => string,
  separator = '',
): Promise<void> {
  const slicer = createSlicer();
  for (let start = 0; start < count; start += BATCH) {
    if (res.destroyed) return;
    const end = Math.min(count, start + BATCH);
    const lines: string[] = [];
    for (let index = start; index < end; index += 1) lines.push(lineOf(index));
    const text = (start === 0 ? '' : separator) + lines.join(separator);
    if (!res.write(text)) await drained(res);
    await slicer.next();
  }
}
