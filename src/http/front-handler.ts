import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Router } from 'express';

/**
 * A hot-path handler run before express: no routing, no request/response decoration. It returns false,
 * without touching the response, for a request it does not serve (express then handles it as usual),
 * or the promise of serving it; a rejection goes to the app's error handling like a route's would.
 */
export type FrontHandler = (req: IncomingMessage, res: ServerResponse) => false | Promise<void>;

const frontHandlers = new WeakMap<Router, FrontHandler>();

/**
 * Gives a router a front handler for its hot path (feed polls and their 304s), which createHttpApp runs
 * ahead of express. The router must still serve everything itself: the front handler is a shortcut,
 * and the router works as before without it.
 */
export function withFrontHandler<T extends Router>(router: T, handler: FrontHandler): T {
  frontHandlers.set(router, handler);
  return router;
}

/** The front handler a router was given, if any. */
export function frontHandlerOf(router: Router): FrontHandler | undefined {
  return frontHandlers.get(router);
}
