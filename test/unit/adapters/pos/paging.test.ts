import { describe, expect, it } from 'vitest';
import { PAGES_AHEAD, type RawPage, readAllPages } from '../../../../src/adapters/pos/paging.js';

/**
 * A list of `size` items served `pageSize` at a time (or as many as `pageSize(skip)` says), without a total;
 * records each request and each page handled.
 */
function list(size: number, pageSize: number | ((skip: number) => number)) {
  const log: string[] = [];
  const options = {
    pageSize: 500,
    concurrency: 4,
    maxPages: 100,
    method: 'POST',
    path: '/ext/assortment/article/list',
    idOf: (raw: unknown) => (raw as { id: string }).id,
    fetchPage: async (skip: number): Promise<RawPage> => {
      log.push(`ask ${skip}`);
      await new Promise((resolve) => setTimeout(resolve, 1));
      const items = [];
      const served = typeof pageSize === 'number' ? pageSize : pageSize(skip);
      for (let at = skip; at < Math.min(size, skip + served); at += 1) items.push({ id: `a-${at}` });
      return { items };
    },
    onPage: (items: readonly unknown[], offset: number) => {
      log.push(`handle ${offset}`);
      return items.length;
    },
  };
  return { log, options };
}

describe('adapters/pos/paging without a total', () => {
  it('asks for two pages ahead before handling a full one, and nothing more after a short page', async () => {
    expect(PAGES_AHEAD).toBe(2);
    const { log, options } = list(650, 200);
    const result = await readAllPages(options);
    expect(result.results).toEqual([200, 200, 200, 50]);
    // The page past the end (800) was asked ahead while 400 was handled: counted, never handled.
    expect(result).toMatchObject({ pages: 5, received: 650 });
    expect(log).toEqual([
      'ask 0',
      'handle 0',
      'ask 200',
      'ask 400',
      'ask 600',
      'handle 200',
      'ask 800',
      'handle 400',
      'handle 600',
    ]);
  });

  it('asks one page ahead with POS_CONCURRENCY 1 (one request at a time in flight)', async () => {
    const { log, options } = list(450, 200);
    const result = await readAllPages({ ...options, concurrency: 1 });
    expect(result).toMatchObject({ pages: 3, received: 450 });
    expect(log).toEqual(['ask 0', 'handle 0', 'ask 200', 'ask 400', 'handle 200', 'handle 400']);
  });

  it('ends on an empty page after full ones', async () => {
    const { log, options } = list(400, 200);
    const result = await readAllPages(options);
    expect(result.results).toEqual([200, 200]);
    expect(result).toMatchObject({ pages: 4, received: 400 });
    expect(log.filter((line) => line.startsWith('ask'))).toEqual(['ask 0', 'ask 200', 'ask 400', 'ask 600']);
    expect(log.filter((line) => line.startsWith('handle'))).toEqual(['handle 0', 'handle 200']);
  });

  it('asks again from the right place when a page is longer than the first (the offsets asked ahead moved)', async () => {
    // The server sends 100 items first, then pages of 300: an inconsistent page size.
    const { log, options } = list(1000, (skip) => (skip === 0 ? 100 : 300));
    const result = await readAllPages(options);
    expect(result.results).toEqual([100, 300, 300, 300]);
    expect(result.received).toBe(1000);
    expect(log.filter((line) => line.startsWith('handle'))).toEqual(['handle 0', 'handle 100', 'handle 400', 'handle 700']);
  });

  it('reads a list of exactly POS_MAX_PAGES pages: pages asked ahead stop at the limit', async () => {
    const { log, options } = list(450, 200);
    const result = await readAllPages({ ...options, maxPages: 3 });
    expect(result).toMatchObject({ pages: 3, received: 450 });
    expect(log.filter((line) => line.startsWith('ask'))).toEqual(['ask 0', 'ask 200', 'ask 400']);
  });

  it('fails with the page the handling refused, the page asked for meanwhile left unhandled', async () => {
    const { log, options } = list(1000, 200);
    const failing = {
      ...options,
      onPage: (items: readonly unknown[], offset: number) => {
        if (offset === 200) throw new Error('page 200 refused');
        return options.onPage(items, offset);
      },
    };
    await expect(readAllPages(failing)).rejects.toThrow('page 200 refused');
    // Nothing rejects unhandled: the request in flight settles after the failure.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log).toEqual(['ask 0', 'handle 0', 'ask 200', 'ask 400', 'ask 600']);
  });

  it('leaves no rejection unhandled when the handling fails while the page in flight fails too', async () => {
    const { options } = list(1000, 200);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const failing = {
        ...options,
        fetchPage: async (skip: number) => {
          if (skip === 400) throw new Error('POS unavailable');
          return options.fetchPage(skip);
        },
        onPage: (items: readonly unknown[], offset: number) => {
          if (offset === 200) throw new Error('page 200 refused');
          return options.onPage(items, offset);
        },
      };
      await expect(readAllPages(failing)).rejects.toThrow('page 200 refused');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('stops at POS_MAX_PAGES before asking for one page more', async () => {
    const { log, options } = list(10_000, 200);
    await expect(readAllPages({ ...options, maxPages: 3 })).rejects.toThrow(
      'paging did not end within 3 pages (POS_MAX_PAGES) after 600 items',
    );
    expect(log.filter((line) => line.startsWith('ask'))).toEqual(['ask 0', 'ask 200', 'ask 400']);
  });

  it('a failed request fails the reading even while a page is being handled', async () => {
    const { options } = list(1000, 200);
    const failing = {
      ...options,
      fetchPage: async (skip: number) => {
        if (skip === 400) throw new Error('POS unavailable');
        return options.fetchPage(skip);
      },
    };
    await expect(readAllPages(failing)).rejects.toThrow('POS unavailable');
  });
});
