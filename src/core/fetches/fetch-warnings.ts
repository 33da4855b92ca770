import { type Lang, type LocalText, roughDuration } from '../text/local-text.js';
import { CHANNEL_CONSUMERS, type Consumer, channelOfFeed } from './classify-consumer.js';
import { type FetchSummary, usualIntervalSeconds } from './fetch-summary.js';

/**
 * Feeds their channel stopped fetching, and channel feeds never fetched (docs/console.md#who-fetches-the-feeds):
 * for the fetch log's page and the warnings page, in both of the console's languages.
 */

/** A channel that fetched a feed regularly and went quiet (`stale`), or one that never fetched it (`never`). */
export interface FetchWarning {
  readonly kind: 'stale' | 'never';
  /** `warning` for a channel gone quiet; `note` for a feed never fetched (perhaps not registered yet). */
  readonly severity: 'warning' | 'note';
  readonly feed: string;
  readonly view: string;
  /** The feed's path (`/feeds/all/google.xml`), without a token. */
  readonly url: string;
  readonly consumer: Consumer;
  /** ISO time of the last fetch (`stale`). */
  readonly lastAt?: string;
  readonly usualIntervalSeconds?: number;
  /** Seconds since the last fetch (`stale`). */
  readonly silentSeconds?: number;
  /** The sentence to show, in each language. */
  readonly message: LocalText;
}

/** A channel is late once its silence is this many usual intervals long... */
export const STALE_FACTOR = 2;
/** ...and at least this long: a few quick retries must not make every short pause a warning. */
export const MIN_STALE_SECONDS = 15 * 60;
/** Intervals shorter than this are retries or bursts, not a schedule. */
export const MIN_USUAL_SECONDS = 60;

export const CONSUMER_NAMES: Readonly<Record<Lang, Readonly<Record<Consumer, string>>>> = {
  en: {
    google: 'Google',
    heureka: 'Heureka',
    zbozi: 'Zboží.cz (Seznam)',
    meta: 'Meta (Facebook)',
    shoptet: 'Shoptet',
    browser: 'Browsers',
    other: 'Other (scripts, curl, no agent)',
  },
  cs: {
    google: 'Google',
    heureka: 'Heureka',
    zbozi: 'Zboží.cz (Seznam)',
    meta: 'Meta (Facebook)',
    shoptet: 'Shoptet',
    browser: 'Prohlížeče',
    other: 'Ostatní (skripty, curl, bez agenta)',
  },
};

export function feedPath(feed: string, view: string): string {
  return `/feeds/${view}/${feed}`;
}

/** Channels (not people or scripts) that fetched a feed at least three times a minute or more apart, and are late. */
export function staleFetchWarnings(summaries: Iterable<FetchSummary>, now: Date): FetchWarning[] {
  const warnings: FetchWarning[] = [];
  for (const summary of summaries) {
    if (!CHANNEL_CONSUMERS.includes(summary.consumer)) continue;
    const usual = usualIntervalSeconds(summary);
    if (usual === undefined || usual < MIN_USUAL_SECONDS) continue;
    const silent = (now.getTime() - summary.lastAt) / 1000;
    if (silent <= STALE_FACTOR * usual || silent <= MIN_STALE_SECONDS) continue;
    const url = feedPath(summary.feed, summary.view);
    const say = (lang: Lang) => ({
      name: CONSUMER_NAMES[lang][summary.consumer],
      silent: roughDuration(silent, lang),
      usual: roughDuration(usual, lang),
    });
    const en = say('en');
    const cs = say('cs');
    warnings.push({
      kind: 'stale',
      severity: 'warning',
      feed: summary.feed,
      view: summary.view,
      url,
      consumer: summary.consumer,
      lastAt: new Date(summary.lastAt).toISOString(),
      usualIntervalSeconds: usual,
      silentSeconds: Math.round(silent),
      message: {
        en: `${en.name} has not fetched ${url} for ${en.silent}; it usually fetches it every ${en.usual}.`,
        cs: `Robot ${cs.name} nestahuje ${url} už ${cs.silent}; obvykle ho stahuje jednou za ${cs.usual}.`,
      },
    });
  }
  return warnings.sort((a, b) => (b.silentSeconds ?? 0) - (a.silentSeconds ?? 0));
}

/**
 * Channel feeds (of the `all` view) that their channel has not fetched once since the log began: a note,
 * as the feed may simply not be registered with the channel yet. A person or a script fetching it does not count.
 */
export function neverFetchedNotes(feeds: readonly string[], summaries: Iterable<FetchSummary>, since: Date): FetchWarning[] {
  const fetched = new Set<string>();
  for (const summary of summaries) if (channelOfFeed(summary.feed) === summary.consumer) fetched.add(summary.feed);
  const day = since.toISOString().slice(0, 10);
  const notes: FetchWarning[] = [];
  for (const feed of feeds) {
    const consumer = channelOfFeed(feed);
    if (consumer === undefined || fetched.has(feed)) continue;
    const url = feedPath(feed, 'all');
    notes.push({
      kind: 'never',
      severity: 'note',
      feed,
      view: 'all',
      url,
      consumer,
      message: {
        en: `${CONSUMER_NAMES.en[consumer]} has not fetched ${url} since the fetch log began (${day}); register the feed's URL with the channel if it is meant for it.`,
        cs: `Od robota ${CONSUMER_NAMES.cs[consumer]} zatím na ${url} nepřišel žádný požadavek (záznam běží od ${day}); pokud je feed pro tento kanál, zadejte jeho adresu v administraci kanálu.`,
      },
    });
  }
  return notes;
}
