import { describe, expect, it } from 'vitest';
import { type RawPage, readAllPages } from '../../../../src/adapters/pos/paging.js';

/** A list of `size` items served `pageSize` at a time, without a total; records each request and each page handled. */
function list(size: number, pageSize: number) {
  const log: string[] = [];
  const options = {
    pageSize: 500,
    concurrency: 1,
    maxPages: 100,
    method: 'POST',
    path: '/ext/assortment/article/list',
    idOf: (raw: unknown) => (raw as { id: string }).id,
    fetchPage: async (skip: number): Promise<RawPage> => {
      log.push(`ask ${skip}`);
      await new Promise((resolve) => setTimeout(resolve, 1));
      const items = [];
      for (let at = skip; at < Math.min(size, skip + pageSize); at += 1) items.push({ id: `a-${at}` });
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
  it('asks for the next page before handling a full one, and asks nothing after a short page', async () => {
    const { log, options } = list(450, 200);
    const result = await readAllPages(options);
    expect(result.results).toEqual([200, 200, 50]);
    expect(result).toMatchObject({ pages: 3, received: 450 });
    expect(log).toEqual(['ask 0', 'handle 0', 'ask 200', 'ask 400', 'handle 200', 'handle 400']);
  });

  it('ends on an empty page after full ones, with the requests one page at a time made', async () => {
    const { log, options } = list(400, 200);
    const result = await readAllPages(options);
    expect(result.results).toEqual([200, 200]);
    expect(result).toMatchObject({ pages: 3, received: 400 });
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
    expect(log).toEqual(['ask 0', 'handle 0', 'ask 200', 'ask 400']);
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
