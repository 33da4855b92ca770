import { Router } from 'express';

/**
 * Every router of the bridge: paths match in their own letter case only. express matches without case by
 * default, so `/ADMIN/…` reached the admin area while a proxy allowing `location /admin/` to the office only
 * (nginx matches case-sensitively) let it through from anywhere.
 */
export function createRouter(): Router {
  return Router({ caseSensitive: true });
}
