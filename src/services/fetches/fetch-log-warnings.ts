import type { FetchWarning } from '../../core/fetches/fetch-warnings.js';
import type { ConsoleWarning } from '../console/console-warnings.js';

const ACTION = {
  stale: {
    en: "Open the channel's feed settings and its fetch errors (a changed URL or token, a failed download); open the feed URL yourself to check that it answers.",
    cs: 'Otevřete v kanálu nastavení feedu a chyby stahování (změněná URL nebo token, neúspěšné stažení); otevřete URL feedu sami a ověřte, že odpovídá.',
  },
  never: {
    en: 'Register the feed URL in the channel (with ?token=… when FEED_TOKEN is set). If the shop does not use this channel, there is nothing to do.',
    cs: 'Zaregistrujte URL feedu v kanálu (s ?token=…, je-li nastaven FEED_TOKEN). Pokud obchod tento kanál nepoužívá, není co dělat.',
  },
} as const;

/**
 * The fetch log's findings as console warnings (docs/console.md#warnings): a channel that stopped fetching a
 * feed it used to fetch regularly (`feed-not-fetched`), and a channel feed no channel has fetched yet
 * (`feed-never-fetched`, for information: the shop may not use that channel).
 */
export function fetchLogWarnings(fetches: {
  staleFetchers(now?: Date): FetchWarning[];
  neverFetched(): FetchWarning[];
}): ConsoleWarning[] {
  const stale = fetches.staleFetchers().map(
    (warning): ConsoleWarning => ({
      code: 'feed-not-fetched',
      severity: 'warning',
      subject: `${warning.consumer} ${warning.url}`,
      message: warning.message,
      action: ACTION.stale,
    }),
  );
  const never = fetches.neverFetched();
  if (never.length === 0) return stale;
  // One note for all of them: at a fresh start every channel feed is unfetched, which is no cause for a list.
  const list = never.map((warning) => warning.url).join(', ');
  const note: ConsoleWarning = {
    code: 'feed-never-fetched',
    severity: 'info',
    subject: list,
    message: {
      en: `No channel has fetched these feeds since the fetch log began: ${list}.`,
      cs: `Tyto feedy od začátku záznamu stahování žádný kanál nestáhl: ${list}.`,
    },
    action: ACTION.never,
  };
  return [...stale, note];
}
