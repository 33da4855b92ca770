/**
 * The console's two languages and how numbers, money, times and plurals read in each (docs/console.md#languages):
 * Czech for the shops that run the bridge, English for everyone else. Pure text functions, shared by the
 * console's pages (`http/console`), the warnings' sentences (`services`) and the fetch log's notes (`core`).
 */
export const LANGS = ['cs', 'en'] as const;
export type Lang = (typeof LANGS)[number];

/** A sentence in each of the console's languages. */
export interface LocalText {
  readonly en: string;
  readonly cs: string;
}

const LOCALE_OF: Record<Lang, string> = { cs: 'cs-CZ', en: 'en-GB' };

/** Picks the texts of `lang` from an area's `{ en, cs }` pair. */
export function textsFor<T>(texts: { readonly en: T; readonly cs: T }, lang: Lang): T {
  return lang === 'cs' ? texts.cs : texts.en;
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

/** `40 s`, `25 min`, `5 h`, `1,5 h`, `3 dny` / `3 days`: a duration in seconds, rounded as a warning says it. */
export function roughDuration(seconds: number, lang: Lang): string {
  const number = (value: number) => formatNumber(lang, value, 1);
  if (seconds < 90) return `${number(Math.round(seconds))} s`;
  if (seconds < 3600) return `${number(Math.round(seconds / 60))} min`;
  const hours = seconds / 3600;
  if (hours < 48) return `${number(hours < 10 ? Math.round(hours * 10) / 10 : Math.round(hours))} h`;
  const days = Math.round(hours / 24);
  return lang === 'en'
    ? plural(lang, days, { one: '# day', other: '# days' })
    : plural(lang, days, { one: '# den', few: '# dny', other: '# dní' });
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
export function formatAgo(lang: Lang, then: string | Date, now: Date): string {
  const date = typeof then === 'string' ? new Date(then) : then;
  const seconds = Math.round((date.getTime() - now.getTime()) / 1_000);
  const format = relativeFormats.get(lang) ?? new Intl.RelativeTimeFormat(LOCALE_OF[lang]);
  const abs = Math.abs(seconds);
  if (abs < 60) return format.format(seconds, 'second');
  if (abs < 3_600) return format.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return format.format(Math.round(seconds / 3_600), 'hour');
  return format.format(Math.round(seconds / 86_400), 'day');
}
