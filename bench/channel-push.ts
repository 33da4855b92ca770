/**
 * The channel push under a sales burst (issue 13: "a burst of 50 sales/s for 60 s on a 100,000 × 5 catalog:
 * requests sent per channel, with and without coalescing, and the lag from webhook to the channel's test
 * server, p50/p95").
 *
 *   npx tsx bench/channel-push.ts [--articles 100000] [--units 5] [--rate 50] [--seconds 60] [--latency 50]
 *                                 [--pool 2000] [--drain 120] [--mode both|coalesced|uncoalesced]
 *
 * The sandbox POS runs as a child process; the bridge (`startApp`, SQLite store in a temp dir) and the fake
 * Meta and Shoptet servers (`test/fakes/channels/`, each answer `--latency` ms late) run in this process. The
 * sandbox's webhooks go through a pass-through that notes when the bridge accepted each sale's webhook.
 *  1. The first full send: with no cursor the bridge sends every item once to each channel; awaited until
 *     nothing is pending (its requests and duration are reported).
 *  2. A burst per mode: `--rate` sales/s for `--seconds`, 1 to 3 pieces of one article each, over a Zipf-like
 *     choice among the `--pool` items with the fewest pieces in all (so the hottest sell out), through `POST /sandbox/sales`; then up to `--drain` s until nothing is pending.
 *     `coalesced` is the bridge as shipped; `uncoalesced` switches the bench-only `pushCoalesce` so each
 *     change is its own row and request (`src/app/push-uncoalesced.ts`), under the same pacing.
 * A sale's lag on a channel runs from its webhook's 2xx to the fake's receipt of the first request that
 * carries the item in a state that shows the sale (or a later one): Shoptet every sale (stock of `all`), Meta
 * only the sales that sell an item out (Meta is told price and availability, not stock).
 * Prints JSON: per mode the bridge's own share (webhook accepted → a served version shows the sale), and per
 * channel requests, items, sales concerned, lag p50/p95/max, not seen, pending at the end; the event-loop
 * delay of this process (bridge, fakes and bench alike) during each burst and its drain.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pino } from 'pino';
import { type RunningApp, startApp } from '../src/app/start-app.js';
import type { Product } from '../src/core/catalog/catalog.js';
import { createTestConfig } from '../test/helpers/test-config.js';
import { numberArgument } from './bench-args.js';
import { arrivedAt, type ChannelUnderTest, type ItemReceipt, startChannels } from './channel-push-channels.js';
import { type MadeSale, makeSale, type SalePicker, startWebhookTap, type WebhookTap, zipfPicker } from './channel-push-sales.js';
import { freePort } from './free-port.js';
import { startSandboxProcess } from './sandbox-process.js';

const API_KEY = 'bench-key';

const articles = numberArgument('articles', 100_000);
const units = numberArgument('units', 5);
const rate = numberArgument('rate', 50);
const seconds = numberArgument('seconds', 60);
const latencyMs = numberArgument('latency', 50);
const poolSize = numberArgument('pool', 2_000);
const drainSeconds = numberArgument('drain', 120);
const modeIndex = process.argv.indexOf('--mode');
const modeArg = modeIndex < 0 ? 'both' : process.argv[modeIndex + 1];
const modes = modeArg === 'coalesced' || modeArg === 'uncoalesced' ? [modeArg] : ['coalesced', 'uncoalesced'];

const round = (value: number) => Math.round(value);

/** The bridge's warnings and errors by message (on stderr as they come; counted for the report). */
const logCounts = new Map<string, number>();
function countLogLine(line: string): void {
  process.stderr.write(line);
  const { msg } = JSON.parse(line) as { msg?: string };
  const key = (msg ?? '?').slice(0, 80);
  logCounts.set(key, (logCounts.get(key) ?? 0) + 1);
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

type PushStatus = Record<string, { pending: number }>;

async function pushStatus(app: RunningApp): Promise<PushStatus> {
  const ready = (await (await fetch(`${app.url}/readyz`)).json()) as { push?: PushStatus };
  return ready.push ?? {};
}

/** Polls until every channel has nothing pending twice in a row (the status refreshes every 2 s), or `ms`. */
async function drained(app: RunningApp, ms: number, also: () => boolean = () => true): Promise<PushStatus> {
  const until = performance.now() + ms;
  let calm = 0;
  let status = await pushStatus(app);
  while (performance.now() < until) {
    status = await pushStatus(app);
    const empty = Object.values(status).every((channel) => channel.pending === 0);
    calm = empty && also() ? calm + 1 : 0;
    if (calm >= 2) break;
    await sleep(1_000);
  }
  return status;
}

/** The channel's item sends from request `from` on: how many, how many items. */
function sends(channel: ChannelUnderTest, from: number) {
  const requests = channel.server.requests.slice(from).filter((request) => channel.isSend(request));
  const receipts = requests.flatMap((request) => channel.receipts(request));
  const lastRequest = requests.at(-1);
  const last = lastRequest === undefined ? undefined : arrivedAt(lastRequest);
  const statuses: Record<string, number> = {};
  for (const request of requests) statuses[String(request.status)] = (statuses[String(request.status)] ?? 0) + 1;
  return { requests: requests.length, items: receipts.length, receipts, last, statuses };
}

/** Each concerned sale's lag to the first receipt that shows it. */
function lags(channel: ChannelUnderTest, sales: readonly MadeSale[], receipts: readonly ItemReceipt[]) {
  const byId = new Map<string, ItemReceipt[]>();
  for (const receipt of receipts) {
    const list = byId.get(receipt.id) ?? [];
    list.push(receipt);
    byId.set(receipt.id, list);
  }
  const values: number[] = [];
  const fromServed: number[] = [];
  let concerned = 0;
  let notSeen = 0;
  for (const sale of sales) {
    if (!channel.concerns(sale) || sale.acceptedAt === undefined) continue;
    concerned += 1;
    const seen = byId.get(sale.id)?.find((receipt) => receipt.at >= sale.postedAt && receipt.shows(sale));
    if (seen === undefined) notSeen += 1;
    else {
      values.push(Math.max(0, seen.at - sale.acceptedAt));
      if (sale.servedAt !== undefined) fromServed.push(Math.max(0, seen.at - sale.servedAt));
    }
  }
  // `fromServedMs`: the push's own share, from the version that shows the sale to the channel.
  return { salesConcerned: concerned, lagMs: summary(values), fromServedMs: summary(fromServed), notSeen };
}

/** Notes when the bridge first serves each sale's stock (the share of the lag before the push starts). */
function trackServed(app: RunningApp, products: readonly Product[]): (sales: MadeSale[]) => void {
  const positionOf = new Map(products.map((product, position) => [product.id, position]));
  let watched: MadeSale[] = [];
  app.catalog.onChange((snapshot) => {
    const at = performance.now();
    // The list grows during the burst: read it as it is now, never a copy.
    for (const sale of watched) {
      if (sale.servedAt !== undefined) continue;
      const position = positionOf.get(sale.id);
      const product = position === undefined ? undefined : snapshot.products[position];
      const stock = product?.id === sale.id ? product.aggregate.stock : undefined;
      if (stock !== undefined && stock <= sale.totalAfter) sale.servedAt = at;
    }
  });
  return (sales) => {
    watched = sales;
  };
}

function summary(values: number[]) {
  values.sort((a, b) => a - b);
  return { p50: round(percentile(values, 50)), p95: round(percentile(values, 95)), max: round(values.at(-1) ?? Number.NaN) };
}

/** `rate` sales per second for `seconds`, paced against the start; answers the sales made. */
async function burst(sandboxUrl: string, picker: SalePicker, sales: MadeSale[]): Promise<MadeSale[]> {
  const pending: Promise<void>[] = [];
  const started = performance.now();
  const total = Math.round(rate * seconds);
  for (let index = 0; index < total; index++) {
    const wait = started + (index * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    const choice = picker.next();
    if (choice === undefined) break;
    const sale: MadeSale = { id: choice.id, totalAfter: choice.totalAfter, postedAt: performance.now() };
    sales.push(sale);
    pending.push(
      makeSale(sandboxUrl, API_KEY, choice).then(
        (receiptId) => {
          if (receiptId !== undefined) sale.receiptId = receiptId;
        },
        () => undefined,
      ),
    );
  }
  await Promise.all(pending);
  return sales;
}

/** When the bridge accepted the sale's webhook (noted by the tap as the sandbox delivers). */
function acceptedAt(sale: MadeSale, tap: WebhookTap): number | undefined {
  return sale.receiptId === undefined ? undefined : tap.acceptedAt.get(sale.receiptId);
}

async function runMode(
  mode: string,
  context: {
    app: RunningApp;
    sandboxUrl: string;
    channels: ChannelUnderTest[];
    picker: SalePicker;
    tap: WebhookTap;
    watch: (sales: MadeSale[]) => void;
  },
) {
  const { app, channels } = context;
  const from = new Map(channels.map((channel) => [channel.name, channel.server.requests.length]));
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  const sales: MadeSale[] = [];
  context.watch(sales);
  await burst(context.sandboxUrl, context.picker, sales);
  const burstMs = performance.now() - started;
  const noteAccepted = () => {
    for (const sale of sales) {
      const at = acceptedAt(sale, context.tap);
      if (at !== undefined) sale.acceptedAt = at;
    }
  };
  // Done when every webhook was accepted, nothing is pending, and every channel got every sale it is told of
  // (an empty outbox alone can be a moment before the last webhooks' stock is applied and derived).
  const done = () => {
    noteAccepted();
    const delivered = sales.every((sale) => sale.receiptId === undefined || sale.acceptedAt !== undefined);
    const seen = () =>
      channels.every((channel) => lags(channel, sales, sends(channel, from.get(channel.name) ?? 0).receipts).notSeen === 0);
    return delivered && seen();
  };
  const status = await drained(app, drainSeconds * 1000, done);
  delay.disable();
  noteAccepted();
  const perChannel = Object.fromEntries(
    channels.map((channel) => {
      const sent = sends(channel, from.get(channel.name) ?? 0);
      const pendingAtEnd = status[channel.name]?.pending ?? Number.NaN;
      return [
        channel.name,
        {
          requests: sent.requests,
          statuses: sent.statuses,
          items: sent.items,
          pendingAtEnd,
          ...lags(channel, sales, sent.receipts),
        },
      ];
    }),
  );
  return {
    mode,
    sales: {
      made: sales.length,
      inMs: round(burstMs),
      webhooksAccepted: sales.filter((sale) => sale.acceptedAt !== undefined).length,
    },
    webhookToServedMs: summary(
      sales.flatMap((sale) =>
        sale.acceptedAt === undefined || sale.servedAt === undefined ? [] : [Math.max(0, sale.servedAt - sale.acceptedAt)],
      ),
    ),
    perChannel,
    drainedInMs: round(performance.now() - started - burstMs),
    eventLoopDelayMs: { p99: round(delay.percentile(99) / 1e6), max: round(delay.max / 1e6) },
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'channel-push-'));
  const port = await freePort();
  const channels = await startChannels(latencyMs);
  const tap = await startWebhookTap(() => `http://127.0.0.1:${port}/webhooks/pos`);
  const sandbox = await startSandboxProcess({ articles, units, apiKey: API_KEY, webhookUrl: tap.url });
  let coalesce = true;
  const app = await startApp(
    createTestConfig({
      POS_BASE_URL: sandbox.url,
      POS_API_KEY: API_KEY,
      PORT: String(port),
      STORE_URL: `sqlite://${join(dir, 'catalog.sqlite')}`,
      // Only webhooks change the stock during the run.
      CATALOG_SYNC_CRON: '0 0 1 1 *',
      STOCK_SYNC_CRON: '0 0 1 1 *',
      // The channels get the feeds' items, and a Meta item needs its links.
      FEED_PRODUCT_URL: 'https://shop.example.cz/p/{code}',
      FEED_IMAGE_URL: 'https://shop.example.cz/img/{code}.jpg',
      ...Object.assign({}, ...channels.map((channel) => channel.env)),
    }),
    { logger: pino({ level: 'warn' }, { write: (line: string) => countLogLine(line) }), pushCoalesce: () => coalesce },
  );
  try {
    await app.initialSync;
    // The push starts on the same settlement; its first request waits for I/O, so the shop is ready first.
    const first = app.catalog.current();
    if (first === undefined) throw new Error('the first sync did not publish');
    for (const channel of channels) channel.prepare(first.products);
    const initialStart = performance.now();
    const everyChannelSent = () => channels.every((channel) => sends(channel, 0).requests > 0);
    const initialStatus = await drained(app, 1_800_000, everyChannelSent);
    if (!everyChannelSent()) throw new Error(`the first full send did not reach every channel: ${JSON.stringify(initialStatus)}`);
    const initialSend = Object.fromEntries(
      channels.map((channel) => {
        const sent = sends(channel, 0);
        return [
          channel.name,
          { requests: sent.requests, items: sent.items, seconds: round(((sent.last ?? initialStart) - initialStart) / 100) / 10 },
        ];
      }),
    );
    const picker = zipfPicker(first.products, poolSize);
    const watch = trackServed(app, first.products);
    const results = [];
    for (const mode of modes) {
      coalesce = mode === 'coalesced';
      results.push(await runMode(mode, { app, sandboxUrl: sandbox.url, channels, picker, tap, watch }));
    }
    const [coalesced, uncoalesced] = [results.find((r) => r.mode === 'coalesced'), results.find((r) => r.mode === 'uncoalesced')];
    const requestRatio =
      coalesced === undefined || uncoalesced === undefined
        ? undefined
        : Object.fromEntries(
            channels.map((channel) => {
              const withIt = coalesced.perChannel[channel.name];
              const without = uncoalesced.perChannel[channel.name];
              // Without coalescing every pending row is one more request still to send.
              const needed = (without?.requests ?? 0) + (without?.pendingAtEnd ?? 0);
              return [
                channel.name,
                withIt === undefined || withIt.requests === 0 ? null : Math.round((needed / withIt.requests) * 10) / 10,
              ];
            }),
          );
    process.stdout.write(
      `${JSON.stringify(
        {
          node: process.version,
          catalog: { articles, units, products: first.products.length },
          burst: { rate, seconds, pool: picker.poolSize, fakeLatencyMs: latencyMs, drainLimitS: drainSeconds },
          initialSend,
          modes: results,
          uncoalescedRequestsPerCoalescedRequest: requestRatio,
          bridgeWarningsAndErrors: Object.fromEntries(logCounts),
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await app.stop();
    await sandbox.stop();
    await tap.close();
    for (const channel of channels) await channel.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
