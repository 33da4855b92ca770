import type { Request } from 'express';

export type JsonBody = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

/**
 * Parses the raw body as JSON whatever the Content-Type says: the POS answers a non-JSON body with an
 * `isValid: false` envelope rather than a parser's HTML error page. An empty body gives `undefined`.
 */
export function readJsonBody(req: Request): JsonBody {
  const raw: unknown = req.body;
  if (!Buffer.isBuffer(raw) || raw.length === 0) return { ok: true, value: undefined };
  const text = raw.toString('utf8').replace(/^\uFEFF/, '');
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `Request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}
