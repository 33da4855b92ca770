import type { Request, RequestHandler, Response } from 'express';
import type { ActiveFault, FaultEndpoint } from './fault-injector.js';
import {
  entitiesReply,
  errorFaultReply,
  invalidReply,
  type Media,
  malformedReply,
  type Reply,
  sendEndless,
  sendGzipBomb,
  sendLongLine,
  sendReply,
  sendTrickle,
  sendTruncated,
} from './sandbox-replies.js';
import type { SandboxState } from './sandbox-state.js';

/** One operation of interface part 4: its normal answer, and what its faults answer. */
export interface EndpointDefinition {
  readonly endpoint: FaultEndpoint;
  readonly media: Media;
  handle(req: Request): Reply;
  /** What the `empty` fault answers: a valid, empty catalog in the endpoint's format. */
  empty(req: Request): Reply;
}

export function unitNotFound(identifier: string): Reply {
  return invalidReply([`Unit "${identifier}" not found (use the unit's localId or code)`], 404);
}

/** Waits `ms`; resolves false when the client went away in the meantime. */
function delay(res: Response, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    function onClose(): void {
      clearTimeout(timer);
      resolve(false);
    }
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(!res.destroyed);
    }, ms);
    // A pending latency fault must not keep the process alive after stop().
    timer.unref();
    res.once('close', onClose);
  });
}

/** Answers a request as the endpoint would, or as the fault that fired for it says. */
async function respond(req: Request, res: Response, definition: EndpointDefinition, fault: ActiveFault | undefined) {
  switch (fault?.mode) {
    case undefined:
      return sendReply(res, definition.handle(req));
    case 'latency':
      if (await delay(res, fault.latencyMs)) await sendReply(res, definition.handle(req));
      return;
    case 'error':
      return sendReply(res, errorFaultReply(fault, definition.media));
    case 'malformed':
      return sendReply(res, malformedReply(definition.media));
    case 'truncated': {
      const reply = definition.handle(req);
      if (reply.status === 200) sendTruncated(res, reply);
      else await sendReply(res, reply);
      return;
    }
    case 'hang':
      // Never answer: the client's timeout (or stop(), which closes every connection) ends it.
      return;
    case 'invalid':
      return sendReply(res, invalidReply(['Simulated failure: the POS could not process the request']));
    case 'empty':
      return sendReply(res, definition.empty(req));
    case 'endless':
      return sendEndless(res, definition.media);
    case 'trickle':
      return sendTrickle(res, definition.handle(req), fault.intervalMs);
    case 'long-line':
      return sendLongLine(res, definition.media);
    case 'gzip-bomb':
      return sendGzipBomb(res, definition.media);
    case 'entities':
      return sendReply(res, entitiesReply(definition.media));
  }
}

/** The express handler of an endpoint, behind the fault injector. */
export function endpointRoute(
  state: SandboxState,
  onFault: (req: Request, fault: ActiveFault) => void,
  definition: EndpointDefinition,
): RequestHandler {
  return async (req, res) => {
    const fault = state.faults.take(definition.endpoint);
    if (fault !== undefined) onFault(req, fault);
    await respond(req, res, definition, fault);
  };
}
