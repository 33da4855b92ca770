import {
  createVerdictBuckets,
  createVerdictTally,
  type IssueTexts,
  type VerdictSummary,
} from '../../core/push/channel-verdicts.js';
import { GOOGLE_MAX_PRODUCT_PAGES, type GoogleVerdict } from '../../core/push/google-product-status.js';
import type { GoogleAccountReads } from './google-account-port.js';
import { RENDERED_CODES_MAX, readAccountIssues, renderIssueTexts } from './google-issue-texts.js';
import { type ReadSchedule, startReadSchedule } from './read-schedule.js';

/**
 * Google's verdicts on the items, read back (docs/channel-push.md, "Google's verdicts"): on the leader, a
 * while after the start and then every GOOGLE_STATUS_INTERVAL_MS, every page of `products.list` is read in
 * turn with the sends (the channel's pacer, so within the quota), and the verdicts replace those in the
 * store once the whole listing is read. A read that fails keeps the verdicts of the read before and says
 * so. Every instance of a group shows what the store holds.
 */

/** Where the verdicts are kept: the store of the catalog (SQLite, or the group's Redis). */
export interface VerdictStore {
  /**
   * Replaces the verdicts with a complete read's: `count` buckets (`bucketOf`), each the JSON text of its
   * verdicts (buckets without any absent), then its summary; clears a noted failure.
   */
  publish(
    read: { readonly count: number; readonly buckets: ReadonlyMap<number, string> },
    summary: VerdictSummary,
  ): Promise<void>;
  /** Notes a failed read beside the summary; the verdicts stay. */
  noteFailure(error: { readonly at: string; readonly message: string }): Promise<void>;
  summary(): Promise<VerdictSummary | undefined>;
  verdict(offerId: string): Promise<GoogleVerdict | undefined>;
  /** A product's verdict with the issue texts of the same read (the summary in memory may be a read behind). */
  product(offerId: string): Promise<ProductVerdict>;
}

export interface ProductVerdict {
  readonly verdict?: GoogleVerdict;
  readonly issueTexts?: IssueTexts;
}

/** `intervalMs` is GOOGLE_STATUS_INTERVAL_MS; the first read a while after the start (the first sends' verdicts take Google minutes anyway). */
export interface GoogleVerdictsDeps extends ReadSchedule {
  readonly reads: Pick<GoogleAccountReads, 'productsPage' | 'fileUpload' | 'renderedIssues'>;
  /** GOOGLE_MERCHANT_FILE_DATA_SOURCE_ID: the file source fetching google.xml, read with the verdicts. */
  readonly fileDataSourceId?: string;
  /** A read in turn with the sends (`GoogleChannel.paced`); `undefined` while the day's quota is spent. */
  readonly paced: <T>(call: () => Promise<T>) => Promise<T | undefined>;
  readonly store: VerdictStore;
}

export type VerdictReadOutcome = 'read' | 'failed' | 'skipped';

/** More of the listing than this unreadable fails the read (the verdicts before stay): not a few odd products. */
const MAX_UNREADABLE_SHARE = 0.1;

export interface GoogleVerdicts {
  start(): void;
  stop(): Promise<void>;
  /** One read of the whole listing now (leader only; `skipped` elsewhere, while one runs, or without quota). */
  readNow(): Promise<VerdictReadOutcome>;
  /** The summary as last taken from the store (synchronous, for `/readyz`, metrics and the console). */
  summary(): VerdictSummary | undefined;
  /** The verdict on one product, from the store. */
  verdict(offerId: string): Promise<GoogleVerdict | undefined>;
  /** The verdict on one product and the issue texts of the same read, from the store. */
  product(offerId: string): Promise<ProductVerdict>;
}

export function createGoogleVerdicts(deps: GoogleVerdictsDeps): GoogleVerdicts {
  const { store, logger: log, now } = deps;
  const abort = new AbortController();
  let summary: VerdictSummary | undefined;
  let reading: Promise<VerdictReadOutcome> | undefined;

  async function follow(): Promise<void> {
    summary = (await store.summary()) ?? summary;
  }

  async function fail(message: string): Promise<VerdictReadOutcome> {
    // Stopped, or no longer leading: the new leader's reads are the ones to note.
    if (abort.signal.aborted || !deps.isLeader()) return 'skipped';
    const at = new Date(now()).toISOString();
    log.warn({ problem: message }, "push: Google's verdicts not read; the last ones stay");
    await store.noteFailure({ at, message }).catch((error: unknown) => log.warn({ err: error }, 'push: could not note it'));
    await follow().catch(() => undefined);
    return 'failed';
  }

  /** Google's last fetch of google.xml, when its file source is configured (one call, paced). */
  async function readFileFetch(): Promise<VerdictSummary['fileFetch']> {
    const id = deps.fileDataSourceId;
    if (id === undefined || abort.signal.aborted) return undefined;
    const read = await deps.paced(() => deps.reads.fileUpload(id));
    if (read === undefined) return { problem: "the day's quota is spent" };
    return 'fetch' in read ? read.fetch : { problem: read.problem };
  }

  async function readAll(): Promise<VerdictReadOutcome> {
    const startedAt = new Date(now()).toISOString();
    const read = createVerdictBuckets();
    const tally = createVerdictTally();
    const unreadable: { count: number; first?: string } = { count: 0 };
    let token: string | undefined;
    for (let page = 0; page < GOOGLE_MAX_PRODUCT_PAGES; page++) {
      if (abort.signal.aborted || !deps.isLeader()) return 'skipped';
      const pageToken = token;
      const answer = await deps.paced(() => deps.reads.productsPage(pageToken));
      if (answer === undefined)
        return fail("the day's quota is spent; the verdicts are read again at the next interval with quota left");
      if ('problem' in answer) return fail(answer.problem);
      for (const verdict of answer.page.verdicts) {
        tally.add(verdict);
        read.add(verdict);
      }
      unreadable.count += answer.page.unreadable.length;
      const first = answer.page.unreadable[0];
      if (unreadable.first === undefined && first !== undefined) unreadable.first = first;
      token = answer.page.nextPageToken;
      if (token === undefined) return complete(read, tally, startedAt, unreadable);
    }
    return fail(`products.list did not end within ${GOOGLE_MAX_PRODUCT_PAGES} pages`);
  }

  /** A whole listing read: published, unless too much of it could not be read (Google's format changed?). */
  async function complete(
    read: ReturnType<typeof createVerdictBuckets>,
    tally: ReturnType<typeof createVerdictTally>,
    startedAt: string,
    unreadable: { readonly count: number; readonly first?: string },
  ): Promise<VerdictReadOutcome> {
    const listed = read.size() + unreadable.count;
    if (unreadable.count > 0 && unreadable.count > listed * MAX_UNREADABLE_SHARE) {
      return fail(
        `${unreadable.count} of ${listed} products in Google's listing could not be read (the first: ${unreadable.first ?? ''})`,
      );
    }
    const fileFetch = await readFileFetch();
    const renders = { ...deps, signal: abort.signal };
    const texts = await renderIssueTexts(renders, tally.renderSubjects(RENDERED_CODES_MAX), summary?.issueTexts);
    if (texts.problem !== undefined && !abort.signal.aborted) {
      log.warn({ problem: texts.problem }, "push: Google's issue texts not all rendered");
    }
    const accountIssues = await readAccountIssues(renders, summary?.accountIssues);
    if (abort.signal.aborted || !deps.isLeader()) return 'skipped';
    const done: VerdictSummary = {
      ...tally.summary(startedAt, unreadable),
      ...(fileFetch === undefined ? {} : { fileFetch }),
      issueTexts: texts.texts,
      accountIssues,
    };
    await store.publish(await read.group(), done);
    summary = done;
    log.info({ ...done.counts, unreadable: unreadable.count }, "push: Google's verdicts read");
    return 'read';
  }

  function readNow(): Promise<VerdictReadOutcome> {
    if (!deps.isLeader() || abort.signal.aborted) return Promise.resolve('skipped');
    if (reading !== undefined) return reading.then(() => 'skipped' as const);
    reading = readAll()
      .catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)))
      .finally(() => {
        reading = undefined;
      });
    return reading;
  }

  return {
    start() {
      startReadSchedule(deps, abort.signal, readNow, follow);
    },
    async stop() {
      abort.abort();
      await reading?.catch(() => undefined);
    },
    readNow,
    summary: () => summary,
    verdict: (offerId) => store.verdict(offerId),
    product: (offerId) => store.product(offerId),
  };
}
