import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { written } from '../../../src/http/send-feed.js';

/** A response whose writes call back only when told to (`flush`), as a socket that stopped taking bytes. */
function stalledResponse() {
  const events = new EventEmitter();
  const pending: (() => void)[] = [];
  const res = {
    write(_chunk: Buffer, callback: () => void) {
      pending.push(callback);
      return false;
    },
    once: (event: string, listener: () => void) => events.once(event, listener),
    off: (event: string, listener: () => void) => events.off(event, listener),
  } as unknown as Pick<ServerResponse, 'write' | 'once' | 'off'>;
  const flush = () => {
    for (const callback of pending.splice(0)) callback();
  };
  return { res, events, flush };
}

describe('http/send-feed: a write to a response', () => {
  it('settles true once the chunk is written, and leaves no close listener behind', async () => {
    const { res, events, flush } = stalledResponse();
    const done = written(res, Buffer.from('a'));
    flush();
    expect(await done).toBe(true);
    expect(events.listenerCount('close')).toBe(0);
  });

  it('settles false when the response closes while the write never calls back (a client gone mid-body)', async () => {
    const { res, events } = stalledResponse();
    const done = written(res, Buffer.from('a'));
    events.emit('close');
    expect(await done).toBe(false);
  });
});
