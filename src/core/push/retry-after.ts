/**
 * `Retry-After` (RFC 9110 §10.2.3) for the push worker (docs/decisions/0013-channel-push.md, "Backoff"):
 * either delay-seconds (`120`) or an HTTP-date; Shoptet sends a date (`Mon, 01 Jul 2024 12:01:11 GMT`).
 * `Date.parse` is not used: it reads garbage such as `"1"` or `"soon 2"` as dates.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
// The three forms a recipient must accept (RFC 9110 §5.6.7): IMF-fixdate, then the obsolete two.
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

interface DateParts {
  readonly year: number;
  readonly month: string;
  readonly day: string;
  readonly time: readonly string[];
}

/** Epoch ms of valid calendar parts, `undefined` for e.g. 31 Feb or 25:00:00. */
function toEpochMs({ year, month, day, time }: DateParts): number | undefined {
  const monthIndex = MONTHS.indexOf(month);
  const [hours, minutes, seconds] = time.map(Number);
  const dayOfMonth = Number(day);
  if (hours === undefined || minutes === undefined || seconds === undefined) return undefined;
  // 60 seconds is a leap second (RFC 5322 allows it); it reads as the next minute's first second.
  if (hours > 23 || minutes > 59 || seconds > 60 || dayOfMonth < 1) return undefined;
  // setUTCFullYear, unlike Date.UTC, does not read years 0–99 as 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, dayOfMonth);
  if (date.getUTCMonth() !== monthIndex) return undefined; // 31 Feb rolled over into March
  date.setUTCHours(hours, minutes, seconds);
  return date.getTime();
}

/** A two-digit rfc850 year: more than 50 years ahead of `nowMs` means the previous century (RFC 9110 §5.6.7). */
function fullYear(twoDigits: number, nowMs: number): number {
  const nowYear = new Date(nowMs).getUTCFullYear();
  const year = Math.floor(nowYear / 100) * 100 + twoDigits;
  return year > nowYear + 50 ? year - 100 : year;
}

/** An HTTP-date in any of its three forms as epoch ms, `undefined` when it is none of them. */
export function parseHttpDate(text: string, nowMs: number): number | undefined {
  const imf = IMF_FIXDATE.exec(text);
  if (imf) {
    const [, day = '', month = '', year = '', ...time] = imf;
    return toEpochMs({ year: Number(year), month, day, time });
  }
  const rfc850 = RFC850_DATE.exec(text);
  if (rfc850) {
    const [, day = '', month = '', year = '', ...time] = rfc850;
    return toEpochMs({ year: fullYear(Number(year), nowMs), month, day, time });
  }
  const asctime = ASCTIME_DATE.exec(text);
  if (asctime) {
    const [, month = '', day = '', hours = '', minutes = '', seconds = '', year = ''] = asctime;
    return toEpochMs({ year: Number(year), month, day: day.trim(), time: [hours, minutes, seconds] });
  }
  return undefined;
}

/**
 * How long to wait, in ms, as a `Retry-After` value asks, counted from `nowMs`: between 0 (a date in the
 * past) and `maxMs` (a huge value must not stall a channel for days). `undefined` when the header is absent
 * or is neither delay-seconds nor an HTTP-date; the caller then falls back to its own backoff.
 *
 * @throws RangeError when `maxMs` is negative or not finite.
 */
export function retryAfterMs(value: string | null | undefined, nowMs: number, maxMs: number): number | undefined {
  if (!Number.isFinite(maxMs) || maxMs < 0) throw new RangeError(`maxMs must be a finite number >= 0, got ${maxMs}`);
  if (value === null || value === undefined) return undefined;
  // Optional whitespace around a field value is not part of it (RFC 9110 §5.5).
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, maxMs);
  const at = parseHttpDate(text, nowMs);
  if (at === undefined) return undefined;
  return Math.min(Math.max(0, at - nowMs), maxMs);
}
