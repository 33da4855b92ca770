import { z } from 'zod';
import { looseObject, OptionalBoolean, PosCount } from './pos-schema-primitives.js';

/** The result envelope of every JSON operation (docs/pos-interface.md, 2.1), and `data` of the list operations. */

/** Message arrays are diagnostics: any shape is turned into text rather than failing the envelope. */
const Texts = z
  .unknown()
  .transform((value): string[] => {
    if (value === null || value === undefined) return [];
    const list = Array.isArray(value) ? value : [value];
    return list.map(toText);
  })
  .optional();

function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    const message = (value as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The envelope without its payload. The client checks `isValid` before it validates `data`, so that
 * `isValid: false` is reported as a rejection with the POS's texts rather than as a schema failure.
 * Every field is optional (the article list sends only `data`); an operation decides whether it needs `data`.
 */
export const PosEnvelopeSchema = looseObject({
  data: z.unknown().optional(),
  isValid: OptionalBoolean,
  errors: Texts,
  warnings: Texts,
  messages: Texts,
});
export type PosEnvelope = z.output<typeof PosEnvelopeSchema>;

/**
 * `data` of the list operations: `items` is required (as an array or, per quirk 3, a single object;
 * a page without `items` is a contract change, not an empty page), `total` only where the operation has it.
 * Items stay `unknown` here: they are validated one by one with `parseLooseList`.
 */
export const PosListDataSchema = looseObject({
  items: z.union([z.array(z.unknown()), z.looseObject({})], { error: 'expected an array of items' }),
  total: PosCount.nullish()
    .transform((value) => value ?? undefined)
    .optional(),
});
export type PosListData = z.output<typeof PosListDataSchema>;
