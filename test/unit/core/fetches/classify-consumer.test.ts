import { describe, expect, it } from 'vitest';
import { channelOfFeed, classifyConsumer, consumerOf } from '../../../../src/core/fetches/classify-consumer.js';
import { USER_AGENTS as UA } from './user-agents.js';

describe('classifyConsumer', () => {
  it.each([
    ['Googlebot', UA.googlebot, 'google'],
    ['Googlebot smartphone (names Chrome and Safari too)', UA.googlebotSmartphone, 'google'],
    ['Google-InspectionTool', UA.googleInspectionTool, 'google'],
    ['Storebot-Google', UA.storebot, 'google'],
    ['FeedFetcher-Google', UA.feedfetcher, 'google'],
    ['GoogleProducer', UA.googleProducer, 'google'],
    ['Heureka', UA.heureka, 'heureka'],
    ['SeznamBot', UA.seznambot, 'zbozi'],
    ['Zboží.cz', UA.zbozi, 'zbozi'],
    ['facebookexternalhit', UA.facebookexternalhit, 'meta'],
    ['facebookcatalog', UA.facebookcatalog, 'meta'],
    ['meta-externalagent', UA.metaExternalAgent, 'meta'],
    ['Shoptet', UA.shoptet, 'shoptet'],
    ['curl', UA.curl, 'other'],
    ['Wget', UA.wget, 'other'],
    ['a script', UA.python, 'other'],
    ['Chrome', UA.chrome, 'browser'],
    ['Firefox', UA.firefox, 'browser'],
    ['Safari', UA.safari, 'browser'],
    ['Edge', UA.edge, 'browser'],
  ])('%s → %s', (_name, userAgent, consumer) => {
    expect(classifyConsumer(userAgent)).toBe(consumer);
    expect(consumerOf(userAgent)).toBe(consumer);
  });

  it('takes a missing or empty agent for "other"', () => {
    expect(classifyConsumer(undefined)).toBe('other');
    expect(classifyConsumer('  ')).toBe('other');
    expect(consumerOf(undefined)).toBe('other');
  });

  it('matches Shoptet in any case', () => {
    expect(classifyConsumer('SHOPTET-import')).toBe('shoptet');
  });
});

describe('channelOfFeed', () => {
  it.each([
    ['google.xml', 'google'],
    ['local-inventory.tsv', 'google'],
    ['heureka.xml', 'heureka'],
    ['heureka-availability.xml', 'heureka'],
    ['zbozi.xml', 'zbozi'],
    ['meta.csv', 'meta'],
    ['shoptet.xml', 'shoptet'],
    ['products.json', undefined],
    ['woocommerce.csv', undefined],
  ])('%s → %s', (file, consumer) => {
    expect(channelOfFeed(file)).toBe(consumer);
  });
});
