import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { threadsExited } from '../../../src/workers/threads-exited.js';

const worker = (code: string) => new Worker(code, { eval: true });

describe('workers/threads-exited: waiting for threads to end', () => {
  it('settles once every thread has exited', async () => {
    const threads = [worker('setTimeout(() => {}, 50)'), worker('setTimeout(() => {}, 150)')];

    await threadsExited(threads, 10_000);

    expect(threads.map((thread) => thread.threadId)).toEqual([-1, -1]);
  });

  it('settles at once for threads gone already', async () => {
    const thread = worker('');
    await new Promise((resolve) => thread.once('exit', resolve));

    await threadsExited([thread], 10_000);

    expect(thread.threadId).toBe(-1);
  });

  it('gives up after its time on a thread that stays, leaving no listener on it', async () => {
    const thread = worker('setInterval(() => {}, 1000)');
    await new Promise((resolve) => thread.once('online', resolve));
    const listeners = thread.listenerCount('exit');

    await threadsExited([thread], 100);

    expect(thread.threadId).not.toBe(-1);
    expect(thread.listenerCount('exit')).toBe(listeners);
    await thread.terminate();
  });

  it('never rejects on a thread that fails while it is waited for', async () => {
    const thread = worker('setTimeout(() => { throw new Error("boom") }, 20)');
    thread.on('error', () => {});

    await expect(threadsExited([thread], 10_000)).resolves.toBeUndefined();
  });
});
