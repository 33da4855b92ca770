import type { IncomingMessage } from 'node:http';
import express, { type ErrorRequestHandler, type Router } from 'express';
import type { z } from 'zod';
import { PosWebhookEventSchema } from '../../adapters/pos/pos-webhook-schema.js';
import { dedupeKeyOf, type StoredWebhookEvent } from '../../services/webhooks/webhook-processor.js';
import { createRouter } from '../create-router.js';
import { secretMatches } from '../middleware/token-auth.js';
import { sendError } from '../send-error.js';

export interface WebhookRoutesDeps {
  /** Accepted `x-api-key` values (WEBHOOK_API_KEY, and WEBHOOK_API_KEY_PREVIOUS while rotating). */
  readonly apiKeys: readonly string[];
  /** Keys accepted only from this machine, never through a proxy (the in-process sandbox's well-known key). */
  readonly loopbackApiKeys?: readonly string[];
  /** Stores the event durably and queues it; rejects when it could not be stored. */
  readonly accept: (dedupeKey: string, event: StoredWebhookEvent) => Promise<{ readonly duplicate: boolean }>;
  /** Counts each call: event kind (`sale`, `client-points`, `unknown`, `invalid`) and outcome. */
  readonly onEvent?: (
    event: string,
    outcome: 'accepted' | 'duplicate' | 'ignored' | 'rejected' | 'unauthorized' | 'failed',
  ) => void;
}

/** Bodies are at most 1 MiB (docs/webhooks.md). */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length === 0 ? 'body' : issue.path.join('.')}: ${issue.message}`)
    .join('; ');
}

/**
 * `POST /webhooks/pos` (docs/webhooks.md): the key is checked first (constant time, against every accepted key),
 * then the body (JSON, ≤ 1 MiB, the interface's event schema). A known event is stored durably before
 * the `200 {}`; a repeated delivery is answered `200` too and not processed again; an unknown kind is
 * answered `200`, counted and dropped. When the event cannot be stored the answer is `503`, so that the
 * POS delivers it again instead of it being lost.
 */
export function createWebhookRoutes(deps: WebhookRoutesDeps): Router {
  const router = createRouter();
  const count = deps.onEvent ?? (() => undefined);

  router.post(
    '/webhooks/pos',
    (req, res, next) => {
      const provided = req.headers['x-api-key'];
      const key = Array.isArray(provided) ? provided[0] : provided;
      // No short circuit: every key is compared, so timing tells nothing about which one matched.
      let matched = false;
      for (const expected of deps.apiKeys) matched = secretMatches(key, expected) || matched;
      const local = fromThisMachine(req);
      for (const expected of deps.loopbackApiKeys ?? []) matched = (secretMatches(key, expected) && local) || matched;
      if (!matched) {
        count('invalid', 'unauthorized');
        res.set('connection', 'close');
        sendError(res, 'UNAUTHORIZED', 'A valid x-api-key header is required');
        return;
      }
      next();
    },
    // Any content type: the body is read as bytes and must be JSON whatever the header says.
    express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT }),
    async (req, res) => {
      const body: unknown = req.body;
      const text = Buffer.isBuffer(body) ? body.toString('utf8') : '';
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (error) {
        count('invalid', 'rejected');
        const detail = text.trim() === '' ? 'the body is empty' : (error as Error).message;
        sendError(res, 'INVALID_JSON', `The webhook body is not valid JSON: ${detail}`);
        return;
      }
      const parsed = PosWebhookEventSchema.safeParse(json);
      if (!parsed.success) {
        count('invalid', 'rejected');
        sendError(res, 'INVALID_EVENT', `The webhook body is not a valid POS event: ${describeIssues(parsed.error)}`);
        return;
      }
      const event = parsed.data;
      if (event.kind === 'unknown') {
        count('unknown', 'ignored');
        res.status(200).json({});
        return;
      }
      try {
        const { duplicate } = await deps.accept(dedupeKeyOf(event), event);
        count(event.kind, duplicate ? 'duplicate' : 'accepted');
        res.status(200).json({});
      } catch {
        count(event.kind, 'failed');
        res.set('retry-after', '5');
        sendError(res, 'NOT_STORED', 'The event could not be stored; deliver it again');
      }
    },
  );

  const bodyErrors: ErrorRequestHandler = (err: unknown, _req, res, next) => {
    const type = typeof err === 'object' && err !== null && 'type' in err ? err.type : undefined;
    if (type === 'entity.too.large') {
      count('invalid', 'rejected');
      res.set('connection', 'close');
      sendError(res, 'TOO_LARGE', `The webhook body is larger than ${WEBHOOK_BODY_LIMIT} bytes`);
      return;
    }
    if (type === 'request.aborted' || type === 'encoding.unsupported' || type === 'charset.unsupported') {
      count('invalid', 'rejected');
      sendError(res, 'BAD_BODY', err instanceof Error ? err.message : 'The body could not be read');
      return;
    }
    next(err);
  };
  router.use('/webhooks', bodyErrors);
  return router;
}

/**
 * Whether a request comes straight from this machine: from a loopback address or from the address it was
 * sent to (a bridge listening on a LAN address, its sandbox posting to it), and not through a proxy (a
 * proxy on this machine would make every client look local).
 */
function fromThisMachine(req: IncomingMessage): boolean {
  const { headers, socket } = req;
  if (headers['x-forwarded-for'] !== undefined || headers.forwarded !== undefined) return false;
  const remote = socket.remoteAddress;
  return isLoopback(remote) || (remote !== undefined && remote === socket.localAddress);
}

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (`::ffff:127.0.0.1`). */
function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}
