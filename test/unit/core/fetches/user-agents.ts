/** Real user-agent strings, as the channels document them or as they are seen in access logs. */
export const USER_AGENTS = {
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  googlebotSmartphone:
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/41.0.2272.96 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  googleInspectionTool: 'Mozilla/5.0 (compatible; Google-InspectionTool/1.0;)',
  storebot:
    'Mozilla/5.0 (X11; Linux x86_64; Storebot-Google/1.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/79.0.3945.88 Safari/537.36',
  feedfetcher: 'FeedFetcher-Google; (+http://www.google.com/feedfetcher.html)',
  googleProducer: 'GoogleProducer; (+https://developers.google.com/search/docs/crawling-indexing/google-producer)',
  heureka: 'Heurekabot-Feed/1.0 (+https://sluzby.heureka.cz/napoveda/heurekabot/)',
  seznambot: 'Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)',
  zbozi: 'Seznam-Zbozi-robot/3.0',
  facebookexternalhit: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  facebookcatalog: 'facebookcatalog/1.0',
  metaExternalAgent: 'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
  // Shoptet publishes no agent for its feed import: anything naming it counts.
  shoptet: 'Shoptet/1.0 (+https://www.shoptet.cz)',
  curl: 'curl/8.5.0',
  wget: 'Wget/1.21.4',
  python: 'python-requests/2.31.0',
  chrome: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  firefox: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  safari: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  edge: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
} as const;
