import type { Request, Response } from 'express';
import type { z } from 'zod';
import { sendError } from '../send-error.js';

/** The query parsed by `schema`, or `undefined` after answering `400 BAD_REQUEST` with what was wrong. */
export function parseQuery<T extends z.ZodType>(schema: T, req: Request, res: Response): z.infer<T> | undefined {
  const parsed = schema.safeParse(req.query);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ');
  sendError(res, 'BAD_REQUEST', `Invalid query: ${issues}`);
  return undefined;
}
