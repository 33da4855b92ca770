import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * What the channels' fake servers share (docs/decisions/0013-channel-push.md, "Test plan"): a node:http server
 * on 127.0.0.1 and a free port, a record of every request, injectable faults, and a count of open connections.
 */

/** One answer a fault forces instead of the channel's normal one. */
export interface ForcedAnswer {
  readonly status: number;
  /**
   * `Retry-After` as sent: delay-seconds (`"120"`) or an HTTP-date; a function is called when the answer is
   * written (an HTTP-date relative to that moment).
   */
  readonly retryAfter?: string | (() => string);
  readonly body?: unknown;
}

export interface RecordedRequest {
  readonly method: string;
  /** Path and query as received. */
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  /** The status the server answered. */
  status?: number;
  /** When it arrived (epoch ms, the fake's clock): pacing tests compare it with an earlier `answeredAt`. */
  readonly receivedAt: number;
  /** When its answer was written (epoch ms, the fake's clock). */
  answeredAt?: number;
  /** The `Retry-After` it answered, if any. */
  retryAfter?: string;
}

export interface Faults {
  /** The next `count` requests get `answer` (after being recorded), whatever they hold. */
  failNext(count: number, answer: ForcedAnswer): void;
  /** Drops the forced answers not given yet: the channel has recovered. */
  clear(): void;
  /** Every answer waits `ms` before it is written (a slow channel; also makes concurrent requests overlap). */
  setLatency(ms: number): void;
  /** Answers wait until `release()` is called (a hung channel, for client timeouts). */
  hold(): { release(): void };
}

export interface HarnessServer {
  readonly baseUrl: string;
  readonly requests: readonly RecordedRequest[];
  readonly faults: Faults;
  /** Most connections open at once since the start. */
  readonly maxConnections: () => number;
  close(): Promise<void>;
}

/** Largest request body the fakes read (Meta refuses above 28 MB; a little more lets the schema say so). */
const MAX_BODY_BYTES = 29 * 1024 * 1024;

/** What a fake answers. */
export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

/** Answers a request no fault has taken; `connections` are the ones open when it arrived. */
export type Handler = (request: RecordedRequest, connections: number) => Reply;

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

/** The faults' state, read by the harness before each answer. */
interface FaultState {
  readonly forced: ForcedAnswer[];
  latencyMs: number;
  gate: Promise<void> | undefined;
}

function createFaults(state: FaultState): Faults {
  return {
    failNext: (count, answer) => {
      for (let i = 0; i < count; i += 1) state.forced.push(answer);
    },
    clear: () => {
      state.forced.length = 0;
    },
    setLatency: (ms) => {
      state.latencyMs = ms;
    },
    hold: () => {
      let release = () => {};
      state.gate = new Promise<void>((resolve) => {
        release = () => {
          state.gate = undefined;
          resolve();
        };
      });
      return { release };
    },
  };
}

/** Starts a fake server whose `handle` answers every request no fault has taken. */
export async function startHarness(handle: Handler, defaultFaultBody: (status: number) => unknown): Promise<HarnessServer> {
  const requests: RecordedRequest[] = [];
  const state: FaultState = { forced: [], latencyMs: 0, gate: undefined };
  const connections = { open: 0, max: 0 };

  function replyTo(recorded: RecordedRequest, openAtArrival: number): Reply {
    const answer = state.forced.shift();
    if (answer === undefined) return handle(recorded, openAtArrival);
    const retryAfter = typeof answer.retryAfter === 'function' ? answer.retryAfter() : answer.retryAfter;
    const headers: Record<string, string> = retryAfter === undefined ? {} : { 'retry-after': retryAfter };
    return { status: answer.status, body: answer.body ?? defaultFaultBody(answer.status), headers };
  }

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const receivedAt = Date.now();
    const openAtArrival = connections.open;
    const body = await readBody(request);
    const recorded: RecordedRequest = {
      method: request.method ?? '',
      url: request.url ?? '',
      headers: request.headers,
      body: body ?? '',
      receivedAt,
    };
    requests.push(recorded);
    if (state.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, state.latencyMs));
    if (state.gate !== undefined) await state.gate;
    const reply = body === undefined ? { status: 413, body: defaultFaultBody(413) } : replyTo(recorded, openAtArrival);
    recorded.status = reply.status;
    recorded.answeredAt = Date.now();
    const retryAfter = reply.headers?.['retry-after'];
    if (retryAfter !== undefined) recorded.retryAfter = retryAfter;
    sendJson(response, reply.status, reply.body, reply.headers);
  }

  const server: Server = createServer((request, response) => {
    serve(request, response).catch(() => response.destroy());
  });
  server.on('connection', (socket: Socket) => {
    connections.open += 1;
    connections.max = Math.max(connections.max, connections.open);
    socket.on('close', () => {
      connections.open -= 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    faults: createFaults(state),
    maxConnections: () => connections.max,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
