import { createHash } from 'node:crypto';
import { PosResponseInvalidError } from './pos-errors.js';

/**
 * Paging that reads everything (docs/catalog-rules.md rule 2). The POS pages with `limit` + `skip`; some lists report
 * `total`, the article list does not, and nothing says the server honours `limit` (it may cap it).
 *
 * Without `total`: `skip` advances by the number of items actually received; reading ends on an empty
 * page, or on a page shorter than the largest page the server has already sent (its real page size).
 * The first page can never end the reading by being short: "asked 500, got 200" means the server's
 * page size is 200, not that the list has 200 items.
 *
 * With `total`: the first page reveals the total and the real page size; the remaining pages are read
 * concurrently, and the number of items received must reach `total` (else "truncated paging").
 *
 * Both: a page that repeats an earlier page (or brings no item not seen before) means the server
 * ignores `skip`: an error instead of an endless loop. `maxPages` bounds the number of requests.
 */

/** Pages asked for ahead of the one being handled, when the list has no `total` (see `readWithoutTotal`). */
export const PAGES_AHEAD = 2;

export interface RawPage {
  readonly items: readonly unknown[];
  readonly total?: number;
}

export interface ReadAllPagesOptions<R> {
  /** The `limit` asked for. */
  readonly pageSize: number;
  /** Parallel page requests once `total` is known. */
  readonly concurrency: number;
  readonly maxPages: number;
  /** For error messages. */
  readonly method: string;
  readonly path: string;
  readonly fetchPage: (skip: number, limit: number) => Promise<RawPage>;
  /** Handles one page as soon as it arrives (pages may arrive out of order); results come back ordered. */
  readonly onPage: (items: readonly unknown[], offset: number) => R;
  /** Identifier of a raw item, to notice pages that bring nothing new. */
  readonly idOf: (raw: unknown) => string | undefined;
}

export interface ReadAllPagesResult<R> {
  /** `onPage` results in list order. */
  readonly results: R[];
  /** Requests made. */
  readonly pages: number;
  /** Raw items received (valid or not). */
  readonly received: number;
  readonly total?: number;
}

/**
 * Reads every page of a list.
 *
 * @example
 * const { results } = await readAllPages({ pageSize: 500, concurrency: 4, maxPages: 1000, method: 'POST',
 *   path: '/ext/unit/list', fetchPage, onPage: (items, offset) => parseLooseList(items, Schema, { offset }), idOf });
 */
export async function readAllPages<R>(options: ReadAllPagesOptions<R>): Promise<ReadAllPagesResult<R>> {
  const tracker = createRepeatTracker(options);
  const first = await options.fetchPage(0, options.pageSize);
  tracker.check(first.items, 0);
  const firstResult = options.onPage(first.items, 0);
  if (first.total === undefined) return readWithoutTotal(options, tracker, first, firstResult);
  return readWithTotal(options, tracker, first, firstResult, first.total);
}

async function readWithoutTotal<R>(
  options: ReadAllPagesOptions<R>,
  tracker: RepeatTracker,
  first: RawPage,
  firstResult: R,
): Promise<ReadAllPagesResult<R>> {
  const results = [firstResult];
  let pages = 1;
  let skip = first.items.length;
  // The largest page seen so far is the page size the server really uses.
  let serverPageSize = first.items.length;
  if (first.items.length === 0) return { results, pages, received: 0 };
  const request = (at: number): Promise<RawPage> => {
    if (pages >= options.maxPages) {
      throw invalid(options, `paging did not end within ${options.maxPages} pages (POS_MAX_PAGES) after ${at} items`);
    }
    pages += 1;
    const page = options.fetchPage(at, options.pageSize);
    // Awaited below, or dropped; handled here too in case a page's handling throws first.
    page.catch(() => {});
    return page;
  };
  // From the second page on, `PAGES_AHEAD` pages are asked for before the one that arrived is handled, each at
  // the offset it has if the pages before it are full: the POS always has the next page to make while this one
  // is parsed and validated (a large catalog's article list is thousands of pages; with one page ahead the POS
  // and the bridge took turns). The cost is a page asked past the end of the list. Pages asked ahead never go
  // past POS_MAX_PAGES: only the page the reading needs next fails there.
  const ahead: Promise<RawPage>[] = [];
  let askAt = skip;
  const askAhead = (): void => {
    // `POS_CONCURRENCY` 1 keeps one request at a time in flight: one page ahead.
    while (ahead.length < Math.min(PAGES_AHEAD, Math.max(1, options.concurrency)) && pages < options.maxPages) {
      ahead.push(request(askAt));
      askAt += serverPageSize;
    }
  };
  askAhead();
  for (;;) {
    // The page at `skip`: every page before it was full, so the first asked ahead starts there.
    const page = await (ahead.shift() ?? request(skip));
    const count = page.items.length;
    if (count === 0) break;
    tracker.check(page.items, skip);
    const offset = skip;
    skip += count;
    const last = count < serverPageSize;
    if (count > serverPageSize) {
      // A page longer than the first moved every offset: what was asked ahead starts at the wrong place.
      serverPageSize = count;
      ahead.length = 0;
      askAt = skip;
    }
    if (!last) askAhead();
    results.push(options.onPage(page.items, offset));
    if (last) break;
  }
  return { results, pages, received: skip };
}

async function readWithTotal<R>(
  options: ReadAllPagesOptions<R>,
  tracker: RepeatTracker,
  first: RawPage,
  firstResult: R,
  total: number,
): Promise<ReadAllPagesResult<R>> {
  const pageSize = first.items.length;
  const ordered: { offset: number; result: R }[] = [{ offset: 0, result: firstResult }];
  let received = pageSize;
  const skips: number[] = [];
  if (pageSize > 0) {
    for (let skip = pageSize; skip < total; skip += pageSize) skips.push(skip);
  }
  if (1 + skips.length > options.maxPages) {
    throw invalid(
      options,
      `${total} items in pages of ${pageSize} need ${1 + skips.length} pages, more than ${options.maxPages} (POS_MAX_PAGES)`,
    );
  }
  let pages = 1;
  let next = 0;
  let ended = false;
  let failure: { error: unknown } | undefined;
  async function worker(): Promise<void> {
    while (failure === undefined && !ended && next < skips.length) {
      const skip = skips[next++] as number;
      try {
        // Ask for the page size the server showed, so a server that does honour `limit` cannot overlap pages.
        const page = await options.fetchPage(skip, pageSize);
        pages += 1;
        if (page.items.length === 0) {
          ended = true;
          return;
        }
        tracker.check(page.items, skip);
        received += page.items.length;
        ordered.push({ offset: skip, result: options.onPage(page.items, skip) });
      } catch (error) {
        failure ??= { error };
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, skips.length)) }, worker));
  if (failure !== undefined) throw failure.error;
  if (received < total) {
    throw invalid(options, `truncated paging: received ${received} of ${total} items`, { received, total });
  }
  ordered.sort((a, b) => a.offset - b.offset);
  return { results: ordered.map((entry) => entry.result), pages, received, total };
}

interface RepeatTracker {
  /** Throws when the page repeats an earlier page or brings no item that was not seen before. */
  check(items: readonly unknown[], skip: number): void;
}

function createRepeatTracker(options: Pick<ReadAllPagesOptions<unknown>, 'idOf' | 'method' | 'path'>): RepeatTracker {
  const signatures = new Map<string, number>();
  const seenIds = new Set<string>();
  return {
    check(items, skip) {
      if (items.length === 0) return;
      const ids = items.map(options.idOf);
      // A page is known by its items' ids when each has one (the article list's pages: hashing the ids, not
      // the whole page, is a tenth of the work), else by its whole text.
      const identified = ids.every((id) => id !== undefined);
      const signature = createHash('sha1')
        .update(JSON.stringify(identified ? ids : items))
        .digest('base64');
      const earlier = signatures.get(signature);
      if (earlier !== undefined) {
        throw invalid(
          options,
          `paging does not advance: the page at skip ${skip} repeats the page at skip ${earlier} (does the POS ignore skip?)`,
        );
      }
      signatures.set(signature, skip);
      const allKnown = identified && ids.every((id) => seenIds.has(id as string));
      if (allKnown) {
        throw invalid(
          options,
          `paging does not advance: the page at skip ${skip} holds only items of earlier pages (does the POS ignore skip?)`,
        );
      }
      for (const id of ids) if (id !== undefined) seenIds.add(id);
    },
  };
}

function invalid(
  options: Pick<ReadAllPagesOptions<unknown>, 'method' | 'path'>,
  reason: string,
  details?: Readonly<Record<string, unknown>>,
): PosResponseInvalidError {
  return new PosResponseInvalidError(reason, {
    method: options.method,
    path: options.path,
    status: 200,
    ...(details === undefined ? {} : { details }),
  });
}
