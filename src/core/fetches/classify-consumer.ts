/**
 * Who fetched a feed, told from its `User-Agent` (docs/console.md#who-fetches-the-feeds). The strings
 * matched are the ones the channels document or are seen sending:
 * - Google: `Googlebot/2.1` (Merchant Center's scheduled fetches come as Googlebot; its help asks that
 *   "Googlebot" and "AdsBot-Google" are not blocked), `Google-InspectionTool`, `Storebot-Google`,
 *   `FeedFetcher-Google`, `GoogleProducer`, `GoogleOther` and the other `Google-…` fetchers.
 * - Heureka: `Heurekabot-Feed/1.0 (+https://sluzby.heureka.cz/napoveda/heurekabot/)`.
 * - Zboží.cz / Seznam: `Seznam-Zbozi-robot/3.0`, `SeznamBot/4.0`, and other `Seznam…` agents.
 * - Meta: `facebookexternalhit/1.1`, `facebookcatalog/1.0`, `meta-externalagent/1.1`, `Facebot`.
 * - Shoptet: its import's agent is not published; anything naming Shoptet counts.
 * - Browsers: Chrome, Firefox, Safari, Edge, Opera (a person looking at a feed).
 * - Everything else (curl, Wget, scripts, no agent at all) is `other`.
 */
export const CONSUMERS = ['google', 'heureka', 'zbozi', 'meta', 'shoptet', 'browser', 'other'] as const;
export type Consumer = (typeof CONSUMERS)[number];

/** The consumers that poll feeds on a schedule: only their silence is worth a warning. */
export const CHANNEL_CONSUMERS: readonly Consumer[] = ['google', 'heureka', 'zbozi', 'meta', 'shoptet'];

/** In order: a channel's robot may also name a browser engine (`… Chrome/… Safari/… (compatible; Googlebot/2.1)`). */
const PATTERNS: readonly (readonly [Consumer, RegExp])[] = [
  [
    'google',
    /googlebot|google-[a-z]|storebot-google|adsbot-google|mediapartners-google|feedfetcher-google|googleproducer|googleother|apis-google/i,
  ],
  ['heureka', /heureka/i],
  ['zbozi', /seznam|zbozi/i],
  ['meta', /facebookexternalhit|facebookcatalog|meta-external|facebot/i],
  ['shoptet', /shoptet/i],
];

/** Robots that announce themselves, so that they are never taken for a browser. */
const ROBOT = /bot|crawl|spider|curl|wget|python|java\/|go-http|node|axios|okhttp|libwww|httpclient|postman|insomnia/i;
const BROWSER = /^Mozilla\/5\.0 .*(Chrome|CriOS|Firefox|FxiOS|Safari|Edg|OPR)\//;

export function classifyConsumer(userAgent: string | undefined): Consumer {
  if (userAgent === undefined || userAgent.trim() === '') return 'other';
  for (const [consumer, pattern] of PATTERNS) if (pattern.test(userAgent)) return consumer;
  if (ROBOT.test(userAgent)) return 'other';
  return BROWSER.test(userAgent) ? 'browser' : 'other';
}

/** Classified agents remembered: clients send a handful of distinct ones, and every feed request asks. */
const known = new Map<string, Consumer>();
const MAX_REMEMBERED = 256;

/** `classifyConsumer`, remembered for the agents seen most recently first (the feed routes' hot path). */
export function consumerOf(userAgent: string | undefined): Consumer {
  if (userAgent === undefined) return 'other';
  const remembered = known.get(userAgent);
  if (remembered !== undefined) return remembered;
  const consumer = classifyConsumer(userAgent);
  if (known.size >= MAX_REMEMBERED) known.clear();
  known.set(userAgent, consumer);
  return consumer;
}

/**
 * The channel a feed file is made for (`google.xml` → Google), by the shipped templates' names; `undefined`
 * for the catalog downloads and shop imports, which no one channel fetches.
 */
export function channelOfFeed(file: string): Consumer | undefined {
  const name = file.toLowerCase();
  if (name.startsWith('google') || name.startsWith('local-inventory')) return 'google';
  if (name.startsWith('heureka')) return 'heureka';
  if (name.startsWith('zbozi')) return 'zbozi';
  if (name.startsWith('meta') || name.startsWith('facebook')) return 'meta';
  if (name.startsWith('shoptet')) return 'shoptet';
  return undefined;
}
