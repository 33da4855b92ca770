import { describe, expect, it } from 'vitest';
import { abortReasonOf, raceAbort, shuttingDown, withDeadline } from '../../../../src/core/async/deadline.js';

describe('core/async/deadline', () => {
  it('aborts with SYNC_DEADLINE when the deadline passes', async () => {
    const deadline = withDeadline(20);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(deadline.signal.aborted).toBe(true);
    expect(abortReasonOf(deadline.signal)).toMatchObject({ code: 'SYNC_DEADLINE', message: 'ran over its deadline of 20 ms' });
    deadline.dispose();
  });

  it('follows the first outer signal that aborts, with its reason', () => {
    const shutdown = new AbortController();
    const other = new AbortController();
    const deadline = withDeadline(60_000, undefined, other.signal, shutdown.signal);
    shutdown.abort(shuttingDown());
    other.abort(new Error('later'));
    expect(abortReasonOf(deadline.signal)?.code).toBe('SYNC_ABORTED');
    deadline.dispose();
  });

  it('is aborted at once by an outer signal that already was', () => {
    const outer = new AbortController();
    outer.abort(shuttingDown());
    const deadline = withDeadline(60_000, outer.signal);
    expect(deadline.signal.aborted).toBe(true);
    deadline.dispose();
  });

  it('aborts what the run left behind when disposed, and then follows nothing else', async () => {
    const outer = new AbortController();
    const deadline = withDeadline(20, outer.signal);
    deadline.dispose();
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toMatchObject({ code: 'SYNC_ABORTED', message: 'the run has ended' });
    outer.abort(new Error('later'));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(deadline.signal.reason).toMatchObject({ message: 'the run has ended' });
  });

  it('races a promise against the signal', async () => {
    const controller = new AbortController();
    expect(await raceAbort(Promise.resolve(1), controller.signal)).toBe(1);
    const never = new Promise<number>(() => {});
    const raced = raceAbort(never, controller.signal);
    controller.abort(shuttingDown());
    await expect(raced).rejects.toMatchObject({ code: 'SYNC_ABORTED' });
    await expect(raceAbort(Promise.resolve(2), controller.signal)).rejects.toMatchObject({ code: 'SYNC_ABORTED' });
    await expect(raceAbort(Promise.reject(new Error('own')), undefined)).rejects.toThrow('own');
  });
});
