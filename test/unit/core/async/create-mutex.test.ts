import { describe, expect, it } from 'vitest';
import { createMutex } from '../../../../src/core/async/create-mutex.js';

describe('core/async/create-mutex', () => {
  it('runs tasks one at a time in call order, whatever their outcome', async () => {
    const exclusive = createMutex();
    const events: string[] = [];
    let running = 0;
    const task = (name: string, fail = false) =>
      exclusive(async () => {
        running++;
        expect(running).toBe(1);
        events.push(`start ${name}`);
        await Promise.resolve();
        events.push(`end ${name}`);
        running--;
        if (fail) throw new Error(name);
        return name;
      });

    const results = await Promise.allSettled([task('a'), task('b', true), task('c')]);

    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
