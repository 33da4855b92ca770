import { z } from 'zod';

/**
 * zod schemas of the POS interface's resources (docs/pos-interface.md, parts 2 and 6).
 *
 * Tolerance rules, applied the same way everywhere (see README.md "Schemas"):
 * - Unknown extra fields are kept (loose objects): the interface may grow without breaking us.
 * - An optional field that is absent, `null`, or (for text) blank is *absent* in the output, never
 *   `undefined` or `null`, so domain objects satisfy `exactOptionalPropertyTypes`.
 * - Numbers may arrive as plain decimal strings (`"129.90"`, `"-2"`): coerced, because that cannot change
 *   the value. Decimal commas, thousands separators and exponents are not coerced (ambiguous).
 * - Identifiers (`localId`, `_id`, `code`, group ids, receipt numbers) may arrive as integers: turned into
 *   their decimal text. EANs and phone numbers are never coerced from numbers (a number has already lost
 *   leading zeros and `+`); such an item is rejected with a reason instead.
 * - Booleans are booleans only: `"false"` is not guessed at.
 * - `items` (and a unit's `priceLists`) may be a single object instead of an array (quirk 3, docs/pos-interface.md).
 */

// ---------------------------------------------------------------------------------------------------
// Primitives

const DECIMAL_TEXT = /^[-+]?\d+(\.\d+)?$/;

/** Error text that says "missing" for an absent required field and what was expected otherwise. */
function expected(what: string) {
  return (issue: { readonly input?: unknown }) => (issue.input === undefined ? 'is required' : `expected ${what}`);
}

/** A finite number, or a plain decimal string that denotes one. */
export const PosNumber = z
  .union([z.number(), z.string().trim().regex(DECIMAL_TEXT).transform(Number)], { error: expected('a number') })
  .pipe(z.number({ error: 'expected a finite number' }));

/** Counts (`total`): non-negative integers. */
export const PosCount = PosNumber.pipe(z.number().int('expected an integer').nonnegative('expected a non-negative number'));

/** A required identifier: non-blank text, or an integer turned into text. */
export const PosId = z
  .union([z.string(), z.number().int()], { error: expected('an identifier (text)') })
  .transform(String)
  .refine((value) => value.trim() !== '', 'must not be blank');

/** Required non-blank text. */
export const RequiredText = z.string({ error: expected('text') }).refine((value) => value.trim() !== '', 'must not be blank');

export function isBlank(value: string): boolean {
  return value.trim() === '';
}

/** Optional text: absent, null and blank all mean "no value". */
export const OptionalText = z
  .string({ error: 'expected text' })
  .nullish()
  .transform((value) => (value === null || value === undefined || isBlank(value) ? undefined : value))
  .optional();

/** Optional identifier: like `PosId`, but absent/null/blank mean "no value". */
export const OptionalId = z
  .union([z.string(), z.number().int()], { error: 'expected an identifier (text)' })
  .nullish()
  .transform((value) => {
    if (value === null || value === undefined) return undefined;
    const text = String(value);
    return isBlank(text) ? undefined : text;
  })
  .optional();

export const OptionalNumber = PosNumber.nullish()
  .transform((value) => value ?? undefined)
  .optional();

export const OptionalBoolean = z
  .boolean({ error: 'expected true or false' })
  .nullish()
  .transform((value) => value ?? undefined)
  .optional();

/** Drops keys whose value is `undefined` (an optional field that was `null` or blank) so they are absent. */
function withoutUndefined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner !== undefined) out[key] = inner;
  }
  return out as T;
}

/** Loose object (extra fields kept) whose nulled/blank optional fields end up absent. */
export function looseObject<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z.looseObject(shape).transform(withoutUndefined);
}

/** An optional nested object: absent or null mean "no value". */
export function optionalObject<Schema extends z.ZodType>(schema: Schema) {
  return schema
    .nullish()
    .transform((value) => value ?? undefined)
    .optional();
}

/** An array, or a single object standing for a one-element array (quirk 3). */
export function arrayOrSingle<Schema extends z.ZodType>(item: Schema) {
  return z
    .union([z.array(item), item], { error: 'expected an array or an object' })
    .transform((value): z.output<Schema>[] => (Array.isArray(value) ? value : [value]));
}
