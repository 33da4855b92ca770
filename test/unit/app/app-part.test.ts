import { describe, expect, it } from 'vitest';
import { type AppPart, startParts, stopParts, stoppedBeside } from '../../../src/app/app-part.js';

/** The app's one order: parts start in the list's order and stop in its reverse, after a failed start too. */

function recorded(log: string[], name: string, options: { failStart?: boolean } = {}): AppPart {
  return {
    name,
    start: () => {
      if (options.failStart === true) throw new Error(`${name} failed`);
      log.push(`start ${name}`);
    },
    stop: () => {
      log.push(`stop ${name}`);
    },
  };
}

describe('app parts', () => {
  it('starts in order and stops backwards', async () => {
    const log: string[] = [];
    const parts = ['a', 'b', 'c'].map((name) => recorded(log, name));
    await startParts(parts, { graceMs: 0 });
    await stopParts(parts, { graceMs: 0 });
    expect(log).toEqual(['start a', 'start b', 'start c', 'stop c', 'stop b', 'stop a']);
  });

  it('stops the parts started before one that fails to start, and throws its error', async () => {
    const log: string[] = [];
    const parts = [recorded(log, 'a'), recorded(log, 'b'), recorded(log, 'c', { failStart: true }), recorded(log, 'd')];
    await expect(startParts(parts, { graceMs: 0 })).rejects.toThrow('c failed');
    expect(log).toEqual(['start a', 'start b', 'stop b', 'stop a']);
  });

  it('stops the last part beside the others, which stop backwards, and passes the grace period', async () => {
    const log: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const last: AppPart = {
      name: 'http',
      start: () => {
        log.push('start http');
      },
      stop: async ({ graceMs }) => {
        log.push(`drain ${graceMs}`);
        await held;
        log.push('drained');
      },
    };
    const together = stoppedBeside('together', [recorded(log, 'a'), recorded(log, 'b')], last);
    await startParts([together], { graceMs: 0 });
    const stopping = stopParts([together], { graceMs: 500 });
    await new Promise((resolve) => setImmediate(resolve));
    // The others stopped while the drain still runs.
    expect(log).toEqual(['start a', 'start b', 'start http', 'drain 500', 'stop b', 'stop a']);
    release();
    await stopping;
    expect(log.at(-1)).toBe('drained');
  });

  it('cleans up the others when the last fails to start', async () => {
    const log: string[] = [];
    const together = stoppedBeside('together', [recorded(log, 'a')], recorded(log, 'http', { failStart: true }));
    await expect(startParts([recorded(log, 'first'), together], { graceMs: 0 })).rejects.toThrow('http failed');
    expect(log).toEqual(['start first', 'start a', 'stop a', 'stop first']);
  });
});
