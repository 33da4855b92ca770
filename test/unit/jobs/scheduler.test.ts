import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { RunAbortedError } from '../../../src/core/async/deadline.js';
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
  it('aborts the signal of a running job when it stops, and waits for the job to end', async () => {
    const scheduler = createScheduler({ timezone: 'UTC', logger });
    const started = deferred();
    let reason: unknown;
    scheduler.schedule({
      name: 'sync-catalog',
      cron: '*/15 * * * *',
      run: (signal) =>
        new Promise<string>((resolve) => {
          started.resolve();
          signal.addEventListener('abort', () => {
            reason = signal.reason;
            resolve('aborted');
          });
        }),
    });
    const outcome = scheduler.runNow('sync-catalog');
    await started.promise;

    await scheduler.stop();

    expect(reason).toBeInstanceOf(RunAbortedError);
    expect(reason).toMatchObject({ code: 'SYNC_ABORTED' });
    expect(await outcome).toMatchObject({ ok: true, result: 'aborted' });
  });

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

  describe('retries', () => {
    /** Waits (bounded) until `done()` holds. */
    async function until(done: () => boolean): Promise<void> {
      for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(done()).toBe(true);
    }

    it('retries a failed run after the policy’s delay until one succeeds, then resets the count', async () => {
      const asked: number[] = [];
      const outcomes: string[] = [];
      let runs = 0;
      const scheduler = createScheduler({
        timezone: 'UTC',
        logger,
        onOutcome: (o) => outcomes.push(o.ok ? String(o.result) : 'threw'),
      });
      scheduler.schedule<string>({
        name: 'sync-catalog',
        cron: '0 0 1 1 *',
        run: async () => {
          runs++;
          if (runs === 1) throw new Error('POS down');
          return runs < 4 ? 'failed' : 'published';
        },
        retry: {
          failed: (result) => result === 'failed',
          delayMs: (failures) => {
            asked.push(failures);
            return 5;
          },
        },
      });
      scheduler.start();

      const first = await scheduler.runNow('sync-catalog');
      expect(first.ok).toBe(false);
      expect(scheduler.status()['sync-catalog']?.failures).toBe(1);
      expect(scheduler.status()['sync-catalog']?.nextTry).toBeInstanceOf(Date);

      await until(() => outcomes.length === 4);
      expect(outcomes).toEqual(['threw', 'failed', 'failed', 'published']);
      expect(asked).toEqual([1, 2, 3]);
      expect(scheduler.status()['sync-catalog']).toMatchObject({ failures: 0, nextTry: undefined });
      await scheduler.stop();
    });

    it('never retries a job without a policy, nor a success', async () => {
      let runs = 0;
      const scheduler = createScheduler({ timezone: 'UTC', logger });
      scheduler.schedule({
        name: 'sync-stock',
        cron: '0 0 1 1 *',
        run: async () => {
          runs++;
          throw new Error('down');
        },
      });

      await scheduler.runNow('sync-stock');

      expect(scheduler.status()['sync-stock']).toMatchObject({ failures: 0, nextTry: undefined });
      expect(runs).toBe(1);
      await scheduler.stop();
    });

    it('leaves the retry to the next scheduled run when that comes first', async () => {
      let runs = 0;
      const scheduler = createScheduler({ timezone: 'UTC', logger });
      scheduler.schedule({
        name: 'sync-catalog',
        cron: '0 3 * * *',
        run: async () => {
          runs++;
          throw new Error('down');
        },
        // Two days: the 03:00 run always comes first.
        retry: { failed: () => false, delayMs: () => 2 * 86_400_000 },
      });
      scheduler.start();

      await scheduler.runNow('sync-catalog');

      const status = scheduler.status()['sync-catalog'];
      expect(status?.failures).toBe(1);
      expect(status?.nextTry?.getTime()).toBe(status?.nextRun?.getTime());
      expect(status?.nextTry?.getUTCHours()).toBe(3);
      expect(runs).toBe(1);
      await scheduler.stop();
    });

    it('keeps runs from overlapping: a retry due during a run is skipped, and that run’s end plans the next', async () => {
      const gate = deferred();
      let runs = 0;
      let concurrent = 0;
      let maxConcurrent = 0;
      const scheduler = createScheduler({ timezone: 'UTC', logger });
      scheduler.schedule<number>({
        name: 'sync-catalog',
        cron: '0 0 1 1 *',
        run: async () => {
          runs++;
          concurrent++;
          maxConcurrent = Math.max(maxConcurrent, concurrent);
          if (runs === 2) await gate.promise;
          concurrent--;
          return runs;
        },
        retry: { failed: (run) => run < 3, delayMs: () => 5 },
      });

      await scheduler.runNow('sync-catalog');
      // Started before the retry is due; the retry's timer fires while it runs.
      const second = scheduler.runNow('sync-catalog');
      await new Promise((resolve) => setTimeout(resolve, 30));
      gate.resolve();
      await second;
      await until(() => scheduler.status()['sync-catalog']?.failures === 0);

      expect(runs).toBe(3);
      expect(maxConcurrent).toBe(1);
      await scheduler.stop();
    });

    it('asks shouldRun before a retry, as before a scheduled run (only the leader retries)', async () => {
      const asked: string[] = [];
      let runs = 0;
      const scheduler = createScheduler({
        timezone: 'UTC',
        logger,
        shouldRun: async (job) => {
          asked.push(job);
          return false;
        },
      });
      scheduler.schedule({
        name: 'sync-catalog',
        cron: '0 0 1 1 *',
        run: async () => {
          runs++;
          throw new Error('down');
        },
        retry: { failed: () => false, delayMs: () => 5 },
      });

      await scheduler.runNow('sync-catalog');
      await until(() => asked.length === 1);

      expect(asked).toEqual(['sync-catalog']);
      expect(runs).toBe(1);
      await scheduler.stop();
    });

    it('cancels a pending retry on stop', async () => {
      let runs = 0;
      const scheduler = createScheduler({ timezone: 'UTC', logger });
      scheduler.schedule({
        name: 'sync-catalog',
        cron: '0 0 1 1 *',
        run: async () => {
          runs++;
          throw new Error('down');
        },
        retry: { failed: () => false, delayMs: () => 20 },
      });

      await scheduler.runNow('sync-catalog');
      await scheduler.stop();
      await new Promise((resolve) => setTimeout(resolve, 60));

      expect(runs).toBe(1);
    });
  });
});
