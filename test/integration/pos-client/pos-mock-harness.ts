import { stdSerializers } from 'pino';
import { type Interceptable, MockAgent } from 'undici';
import { type CreatePosClientOptions, createPosClient, type PosClientConfig } from '../../../src/adapters/pos/pos-client.js';
import type { PosClient } from '../../../src/services/catalog/pos-port.js';

/**
 * A POS client wired to an undici MockAgent: no network, every call recorded, waits recorded instead
 * of slept. Tests must end with `harness.finish()` (all mocks used, agent closed).
 */

export const API_KEY = 'k3y-that-must-never-leak-7f3a';
export const ORIGIN = 'http://pos.test';

export const BASE_CONFIG: PosClientConfig = {
  baseUrl: ORIGIN,
  apiKey: API_KEY,
  exportPathPrefix: '',
  unitIdentifier: 'localId',
  stockExportType: 'csv',
  pageSize: 500,
  timeoutMs: 1_000,
  maxRetries: 3,
  concurrency: 4,
  maxPages: 100,
};

export interface LogEntry {
  readonly level: 'debug' | 'warn';
  readonly meta: object;
  readonly message: string;
}

export interface Harness {
  readonly agent: MockAgent;
  readonly pool: Interceptable;
  readonly client: PosClient;
  /** Every wait the client asked for, in ms. */
  readonly sleeps: number[];
  readonly logs: LogEntry[];
  /** Recorded requests, in order. */
  calls(): { method: string; path: string; headers: Record<string, string>; body: unknown }[];
  finish(): Promise<void>;
}

export function createHarness(
  config: Partial<PosClientConfig> = {},
  options: Omit<CreatePosClientOptions, 'config' | 'dispatcher'> = {},
): Harness {
  const agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  const sleeps: number[] = [];
  const logs: LogEntry[] = [];
  const client = createPosClient({
    config: { ...BASE_CONFIG, ...config },
    dispatcher: agent,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    logger: {
      debug: (meta, message) => logs.push({ level: 'debug', meta, message }),
      warn: (meta, message) => logs.push({ level: 'warn', meta, message }),
    },
    ...options,
  });
  return {
    agent,
    pool: agent.get(ORIGIN),
    client,
    sleeps,
    logs,
    calls() {
      return (agent.getCallHistory()?.calls() ?? []).map((call) => ({
        method: call.method,
        path: call.path,
        headers: normaliseHeaders(call.headers),
        body: typeof call.body === 'string' ? JSON.parse(call.body) : undefined,
      }));
    },
    async finish() {
      try {
        agent.assertNoPendingInterceptors();
      } finally {
        await client.close();
        await agent.close();
      }
    },
  };
}

function normaliseHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === null || typeof headers !== 'object') return out;
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) out[name.toLowerCase()] = String(value);
  return out;
}

export interface ListServerOptions {
  /** Largest page the fake POS sends, whatever `limit` asks. */
  readonly cap?: number;
  /** Report `total` (the real count unless `totalOverride`). */
  readonly withTotal?: boolean;
  readonly totalOverride?: number;
  /** Serve every request as if `skip` were 0. */
  readonly ignoreSkip?: boolean;
}

/** A list endpoint over `all` that honours (or, as told, bends) `limit` and `skip`; answers any number of calls. */
export function serveList(pool: Interceptable, path: string, all: readonly unknown[], options: ListServerOptions = {}): void {
  pool
    .intercept({ path, method: 'POST', headers: { 'x-api-key': API_KEY } })
    .reply((request) => {
      const body = JSON.parse(String(request.body)) as { limit: number; skip: number };
      const limit = Math.min(body.limit, options.cap ?? Number.POSITIVE_INFINITY);
      const skip = options.ignoreSkip === true ? 0 : body.skip;
      const data: Record<string, unknown> = { items: all.slice(skip, skip + limit) };
      if (options.withTotal === true) data['total'] = options.totalOverride ?? all.length;
      return {
        statusCode: 200,
        data: JSON.stringify({ data }),
        responseOptions: { headers: { 'content-type': 'application/json' } },
      };
    })
    .persist();
}

export function articles(count: number, from = 1): { localId: string; name: string; salesPrice: number }[] {
  return Array.from({ length: count }, (_, i) => ({ localId: `a-${from + i}`, name: `Article ${from + i}`, salesPrice: 10 + i }));
}

export function units(count: number): { localId: string; code: string; name: string; priceLists: unknown[] }[] {
  return Array.from({ length: count }, (_, i) => ({
    localId: `u-${i + 1}`,
    code: `U${i + 1}`,
    name: `Unit ${i + 1}`,
    priceLists: [],
  }));
}

export function movements(count: number): { _id: string; count: number }[] {
  return Array.from({ length: count }, (_, i) => ({ _id: `m-${i + 1}`, count: -1 }));
}

/** JSON reply with the headers a real POS would send. */
export function json(body: unknown): [number, string, { headers: Record<string, string> }] {
  return [200, JSON.stringify(body), { headers: { 'content-type': 'application/json' } }];
}

/** Whether `error` reveals the API key in any of the ways errors get printed, stored or logged (pino prints causes). */
export function revealsKey(error: unknown): boolean {
  const texts = [
    String(error),
    JSON.stringify(error),
    error instanceof Error ? (error.stack ?? '') : '',
    error instanceof Error ? JSON.stringify(stdSerializers.err(error)) : '',
  ];
  return texts.some((text) => text.includes(API_KEY));
}
