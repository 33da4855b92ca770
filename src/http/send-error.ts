import type { Response } from 'express';

/** The bridge's API error body (docs/http-interface.md): `{ "error": { "code", "message" } }`. */
export function sendError(
  res: Response,
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): void {
  res
    .status(status)
    .set('cache-control', 'no-store')
    .json({ error: { code, message, ...extra } });
}
