/**
 * Which of the console's two languages a request reads (docs/console.md#languages). Texts live beside the
 * pages that use them, as one object per language whose shape TypeScript checks (`cs` must have every key
 * `en` has); numbers, dates and plurals come from core/text/local-text.ts.
 */
import type { Request, Response } from 'express';
import type { Lang } from '../../core/text/local-text.js';

/** The cookie the language switch sets; the `lang` query parameter sets it. */
export const LANG_COOKIE = 'cb_lang';

function isLang(value: unknown): value is Lang {
  return value === 'cs' || value === 'en';
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The first of our languages an `Accept-Language` header prefers (by q-value), or `undefined`. */
export function preferredLang(header: string | undefined): Lang | undefined {
  if (header === undefined) return undefined;
  const ranked = header
    .split(',')
    .map((part, order) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
      return { primary: tag.trim().toLowerCase().split('-')[0], q: q === undefined ? 1 : Number(q), order };
    })
    .filter((entry) => entry.q > 0 && !Number.isNaN(entry.q))
    .sort((a, b) => b.q - a.q || a.order - b.order);
  // Slovak readers understand Czech better than English.
  for (const entry of ranked) {
    if (entry.primary === 'cs' || entry.primary === 'sk') return 'cs';
    if (entry.primary === 'en') return 'en';
  }
  return undefined;
}

/**
 * The language of a console request: `?lang=` (which the switch sets and a cookie remembers), then the
 * cookie, then `Accept-Language`, then English.
 */
export function langOf(req: Request): Lang {
  const query = req.query['lang'];
  if (isLang(query)) return query;
  const cookie = cookieValue(req.headers.cookie, LANG_COOKIE);
  if (isLang(cookie)) return cookie;
  return preferredLang(req.headers['accept-language']) ?? 'en';
}

/** Remembers a language chosen with the switch (`?lang=`) for the pages opened next. */
export function rememberLang(req: Request, res: Response): void {
  const query = req.query['lang'];
  if (isLang(query)) res.append('set-cookie', `${LANG_COOKIE}=${query}; Path=/; Max-Age=31536000; SameSite=Lax`);
  // Pages differ by language: caches must not hand one reader's language to another.
  res.vary('Accept-Language').vary('Cookie');
}
