import type { Request, Response } from 'express';

/**
 * The console's two languages (docs/console.md#languages): Czech for the shops that run the bridge,
 * English for everyone else. Texts live beside the pages that use them, as one object per language whose
 * shape TypeScript checks (`cs` must have every key `en` has).
 */
export const LANGS = ['cs', 'en'] as const;
export type Lang = (typeof LANGS)[number];

const LOCALE_OF: Record<Lang, string> = { cs: 'cs-CZ', en: 'en-GB' };

/** The cookie the language switch sets; the `lang` query parameter sets it. */
export const LANG_COOKIE = 'cb_lang';

function isLang(value: unknown): value is Lang {
  return value === 'cs' || value === 'en';
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
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

/** Czech has three plural forms in use (1 / 2–4 / 5+ and 0), plus `many` for fractions; English two. */
export interface PluralForms {
  readonly one: string;
  readonly few?: string;
  readonly many?: string;
  readonly other: string;
}

const pluralRules = new Map<Lang, Intl.PluralRules>(LANGS.map((lang) => [lang, new Intl.PluralRules(LOCALE_OF[lang])]));

/** `forms` chosen for `count` by the language's rules, with `#` replaced by the formatted count. */
export function plural(lang: Lang, count: number, forms: PluralForms): string {
  const category = pluralRules.get(lang)?.select(count) ?? 'other';
  const form =
    category === 'one'
      ? forms.one
      : category === 'few'
        ? (forms.few ?? forms.other)
        : category === 'many'
          ? (forms.many ?? forms.other)
          : forms.other;
  return form.replace('#', formatNumber(lang, count));
}

const numberFormats = new Map<string, Intl.NumberFormat>();

function numberFormat(lang: Lang, options: Intl.NumberFormatOptions, key: string): Intl.NumberFormat {
  const cacheKey = `${lang}|${key}`;
  let format = numberFormats.get(cacheKey);
  if (format === undefined) {
    format = new Intl.NumberFormat(LOCALE_OF[lang], options);
    numberFormats.set(cacheKey, format);
  }
  return format;
}

/** `12 345,5` in Czech, `12,345.5` in English. */
export function formatNumber(lang: Lang, value: number, maximumFractionDigits = 3): string {
  return numberFormat(lang, { maximumFractionDigits }, `n${maximumFractionDigits}`).format(value);
}

/** `1 299,00 Kč` / `CZK 1,299.00`: always two decimals, the catalog's currency. */
export function formatMoney(lang: Lang, value: number, currency: string): string {
  try {
    return numberFormat(
      lang,
      { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 },
      `m${currency}`,
    ).format(value);
  } catch {
    // A currency code Intl does not know: the number and the code as configured.
    return `${numberFormat(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 }, 'money2').format(value)} ${currency}`;
  }
}

/** A duration in milliseconds as people read it: `850 ms`, `12,4 s`, `3 min 5 s`. */
export function formatDuration(lang: Lang, ms: number): string {
  if (ms < 1_000) return `${formatNumber(lang, Math.round(ms))} ms`;
  if (ms < 60_000) return `${formatNumber(lang, Math.round(ms / 100) / 10, 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1_000);
  return `${formatNumber(lang, minutes)} min ${formatNumber(lang, seconds)} s`;
}

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

/** A date and time in the reader's language and the bridge's time zone (`SYNC_TIMEZONE`, default UTC). */
export function formatDateTime(lang: Lang, iso: string | Date, timeZone = 'UTC'): string {
  const date = typeof iso === 'string' ? new Date(iso) : iso;
  if (Number.isNaN(date.getTime())) return String(iso);
  // Made once per language and zone: a new format costs ~0.1 ms, and a page may show hundreds of times.
  const key = `${lang}|${timeZone}`;
  let format = dateTimeFormats.get(key);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(LOCALE_OF[lang], { dateStyle: 'medium', timeStyle: 'medium', timeZone });
    dateTimeFormats.set(key, format);
  }
  return format.format(date);
}

const relativeFormats = new Map<Lang, Intl.RelativeTimeFormat>(
  LANGS.map((lang) => [lang, new Intl.RelativeTimeFormat(LOCALE_OF[lang], { numeric: 'auto' })]),
);

/** `2 hours ago` / `před 2 hodinami`, from `then` to `now`. */
export function formatAgo(lang: Lang, then: string | Date, now: Date = new Date()): string {
  const date = typeof then === 'string' ? new Date(then) : then;
  const seconds = Math.round((date.getTime() - now.getTime()) / 1_000);
  const format = relativeFormats.get(lang) ?? new Intl.RelativeTimeFormat(LOCALE_OF[lang]);
  const abs = Math.abs(seconds);
  if (abs < 60) return format.format(seconds, 'second');
  if (abs < 3_600) return format.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return format.format(Math.round(seconds / 3_600), 'hour');
  return format.format(Math.round(seconds / 86_400), 'day');
}

/** Picks the texts of `lang` from an area's `{ en, cs }` pair. */
export function textsFor<T>(texts: { readonly en: T; readonly cs: T }, lang: Lang): T {
  return lang === 'cs' ? texts.cs : texts.en;
}
