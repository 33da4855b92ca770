import { describe, expect, it } from 'vitest';
import { taskErrorOf, WorkerFailedError, WorkerTaskError, withCodeInMessage } from '../../../src/workers/task-errors.js';

describe('workers/task-errors', () => {
  it("carries a coded error's code across the thread boundary, as structured cloning would lose it", () => {
    const thrown = Object.assign(new Error('the price list of unit U2 is not well-formed XML'), { code: 'PRICE_LIST_INVALID' });

    // What reaches the other thread: only name, message and stack survive a clone.
    const cloned = structuredClone(withCodeInMessage(thrown)) as Error;
    const again = taskErrorOf('readUnitDocument', cloned);

    expect(again).toBeInstanceOf(WorkerTaskError);
    expect(again).toMatchObject({ code: 'PRICE_LIST_INVALID', message: 'the price list of unit U2 is not well-formed XML' });
  });

  it('makes anything without a code a WORKER_FAILED naming the task, and leaves uncoded errors as they are in the worker', () => {
    const crash = new Error('Worker terminated due to reaching memory limit');

    expect(withCodeInMessage(crash)).toBe(crash);
    const failed = taskErrorOf('readUnitDocument', crash);
    expect(failed).toBeInstanceOf(WorkerFailedError);
    expect(failed).toMatchObject({
      code: 'WORKER_FAILED',
      message: 'worker task readUnitDocument failed: Worker terminated due to reaching memory limit',
    });
    expect(taskErrorOf('fingerprint', 'a string thrown')).toMatchObject({ code: 'WORKER_FAILED' });
  });
});
