import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createScheduler } from '../../../src/jobs/scheduler.js';

const logger = pino({ level: 'silent' });

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('jobs/scheduler', () => {
  it('runs a job now and reports its outcome', async () => {
    const scheduler = createScheduler({ timezone: 'UTC', logger });
    scheduler.schedule({ name: 'sync-catalog', cron: '*/15 * * * *', run: async () => 42 });

    const outcome = await scheduler.runNow('sync-catalog');

    expect(outcome).toMatchObject({ job: 'sync-catalog', ok: true, result: 42 });
    expect(scheduler.status()['sync-catalog']?.last).toBe(outcome);
    await scheduler.stop();
  });

  it('catches a failing job and keeps the error', async () => {
    const seen: boolean[] = [];
    const scheduler = createScheduler({ timezone: 'UTC', logger, onOutcome: (o) => seen.push(o.ok) });
    scheduler.schedule({
      name: 'sync-stock',
      cron: '*/5 * * * *',
      run: async () => {
        throw new Error('POS down');
      },
    });

    const outcome = await scheduler.runNow('sync-stock');

    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? undefined : outcome.error.message).toBe('POS down');
    expect(seen).toEqual([false]);
    await scheduler.stop();
  });

  it('never runs a job twice at once and coalesces a burst into one follow-up run', async () => {
    const gate = deferred();
    let runs = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    const scheduler = createScheduler({ timezone: 'UTC', logger });
    scheduler.schedule({
      name: 'sync-stock',
      cron: '*/5 * * * *',
      run: async () => {
        runs++;
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        if (runs === 1) await gate.promise;
        concurrent--;
        return runs;
      },
    });

    const first = scheduler.runNow('sync-stock');
    const burst = [scheduler.runNow('sync-stock'), scheduler.runNow('sync-stock'), scheduler.runNow('sync-stock')];
    expect(scheduler.status()['sync-stock']?.running).toBe(true);
    gate.resolve();
    const outcomes = await Promise.all([first, ...burst]);

    expect(runs).toBe(2);
    expect(maxConcurrent).toBe(1);
    expect(outcomes.map((o) => (o.ok ? o.result : undefined))).toEqual([1, 2, 2, 2]);
    await scheduler.stop();
  });

  it('waits for a running job on stop and refuses new runs after', async () => {
    const gate = deferred();
    let finished = false;
    const scheduler = createScheduler({ timezone: 'UTC', logger });
    scheduler.schedule({
      name: 'sync-catalog',
      cron: '*/15 * * * *',
      run: async () => {
        await gate.promise;
        finished = true;
      },
    });
    scheduler.start();
    const running = scheduler.runNow('sync-catalog');

    const stopping = scheduler.stop();
    gate.resolve();
    await stopping;

    expect(finished).toBe(true);
    expect((await running).ok).toBe(true);
    await expect(scheduler.runNow('sync-catalog')).rejects.toThrow('Scheduler is stopped');
  });

  it('reports the next cron run once started', async () => {
    const scheduler = createScheduler({ timezone: 'UTC', logger });
    scheduler.schedule({ name: 'sync-catalog', cron: '0 3 * * *', run: async () => undefined });

    scheduler.start();

    expect(scheduler.status()['sync-catalog']?.nextRun?.getUTCHours()).toBe(3);
    await scheduler.stop();
  });

  it('rejects unknown and duplicate jobs', async () => {
    const scheduler = createScheduler({ timezone: 'UTC', logger });
    scheduler.schedule({ name: 'a', cron: '* * * * *', run: async () => undefined });

    expect(() => scheduler.schedule({ name: 'a', cron: '* * * * *', run: async () => undefined })).toThrow(
      'Job scheduled twice: a',
    );
    expect(() => scheduler.runNow('b')).toThrow('Unknown job: b');
    await scheduler.stop();
  });
});
