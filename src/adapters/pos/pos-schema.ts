import { z } from 'zod';
import type { SourceArticle, SourcePriceList, SourceUnit } from '../../core/catalog/source.js';

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
const PosNumber = z
  .union([z.number(), z.string().trim().regex(DECIMAL_TEXT).transform(Number)], { error: expected('a number') })
  .pipe(z.number({ error: 'expected a finite number' }));

/** Counts (`total`): non-negative integers. */
const PosCount = PosNumber.pipe(z.number().int('expected an integer').nonnegative('expected a non-negative number'));

/** A required identifier: non-blank text, or an integer turned into text. */
const PosId = z
  .union([z.string(), z.number().int()], { error: expected('an identifier (text)') })
  .transform(String)
  .refine((value) => value.trim() !== '', 'must not be blank');

/** Required non-blank text. */
const RequiredText = z.string({ error: expected('text') }).refine((value) => value.trim() !== '', 'must not be blank');

function isBlank(value: string): boolean {
  return value.trim() === '';
}

/** Optional text: absent, null and blank all mean "no value". */
const OptionalText = z
  .string({ error: 'expected text' })
  .nullish()
  .transform((value) => (value === null || value === undefined || isBlank(value) ? undefined : value))
  .optional();

/** Optional identifier: like `PosId`, but absent/null/blank mean "no value". */
const OptionalId = z
  .union([z.string(), z.number().int()], { error: 'expected an identifier (text)' })
  .nullish()
  .transform((value) => {
    if (value === null || value === undefined) return undefined;
    const text = String(value);
    return isBlank(text) ? undefined : text;
  })
  .optional();

const OptionalNumber = PosNumber.nullish()
  .transform((value) => value ?? undefined)
  .optional();

const OptionalBoolean = z
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
function looseObject<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z.looseObject(shape).transform(withoutUndefined);
}

/** An optional nested object: absent or null mean "no value". */
function optionalObject<Schema extends z.ZodType>(schema: Schema) {
  return schema
    .nullish()
    .transform((value) => value ?? undefined)
    .optional();
}

/** An array, or a single object standing for a one-element array (quirk 3). */
function arrayOrSingle<Schema extends z.ZodType>(item: Schema) {
  return z
    .union([z.array(item), item], { error: 'expected an array or an object' })
    .transform((value): z.output<Schema>[] => (Array.isArray(value) ? value : [value]));
}

// ---------------------------------------------------------------------------------------------------
// 2.1 Result envelope

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

// ---------------------------------------------------------------------------------------------------
// 2.2 Article

export const PosArticleSchema = looseObject({
  localId: PosId,
  name: RequiredText,
  localGroupId: OptionalId,
  ean: OptionalText,
  plu: OptionalNumber,
  internalIdentifier: OptionalId,
  measureUnit: OptionalText,
  isSalesItem: OptionalBoolean,
  isStockItem: OptionalBoolean,
  isQuick: OptionalBoolean,
  salesPrice: OptionalNumber,
  purchasePrice: OptionalNumber,
  avgPurchasePrice: OptionalNumber,
});
export type PosArticle = z.output<typeof PosArticleSchema>;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** POS article → domain article: `localGroupId` becomes `groupId`, absent fields stay absent, extras dropped. */
export function toSourceArticle(article: PosArticle): SourceArticle {
  const out: Mutable<SourceArticle> = { localId: article.localId, name: article.name };
  if (article.localGroupId !== undefined) out.groupId = article.localGroupId;
  if (article.ean !== undefined) out.ean = article.ean;
  if (article.plu !== undefined) out.plu = article.plu;
  if (article.internalIdentifier !== undefined) out.internalIdentifier = article.internalIdentifier;
  if (article.measureUnit !== undefined) out.measureUnit = article.measureUnit;
  if (article.isSalesItem !== undefined) out.isSalesItem = article.isSalesItem;
  if (article.isStockItem !== undefined) out.isStockItem = article.isStockItem;
  if (article.isQuick !== undefined) out.isQuick = article.isQuick;
  if (article.salesPrice !== undefined) out.salesPrice = article.salesPrice;
  if (article.purchasePrice !== undefined) out.purchasePrice = article.purchasePrice;
  if (article.avgPurchasePrice !== undefined) out.avgPurchasePrice = article.avgPurchasePrice;
  return out;
}

/** Validates one article item and returns the domain article. */
export const SourceArticleSchema = PosArticleSchema.transform(toSourceArticle);

// ---------------------------------------------------------------------------------------------------
// 2.3 Unit

export const PosPriceListRefSchema = looseObject({
  localId: PosId,
  externalId: OptionalId,
  name: OptionalText,
});

export const PosUnitSchema = looseObject({
  localId: PosId,
  code: PosId,
  // The name is display text only; a unit without one still has prices and stock worth syncing.
  name: OptionalText,
  priceLists: arrayOrSingle(PosPriceListRefSchema)
    .nullish()
    .transform((value) => value ?? []),
});
export type PosUnit = z.output<typeof PosUnitSchema>;

/** POS unit → domain unit. A unit without a name is named by its code (it needs some display name). */
export function toSourceUnit(unit: PosUnit): SourceUnit {
  const priceLists = unit.priceLists.map((priceList): SourcePriceList => {
    const out: Mutable<SourcePriceList> = { localId: priceList.localId };
    if (priceList.externalId !== undefined) out.externalId = priceList.externalId;
    if (priceList.name !== undefined) out.name = priceList.name;
    return out;
  });
  return { localId: unit.localId, code: unit.code, name: unit.name ?? unit.code, priceLists };
}

/** Validates one unit item and returns the domain unit. */
export const SourceUnitSchema = PosUnitSchema.transform(toSourceUnit);

// ---------------------------------------------------------------------------------------------------
// 2.4 Stock movement

/** Amount object: `amount` (without VAT), `VAT`, `amountVAT` (with VAT). */
export const PosAmountSchema = looseObject({
  amount: OptionalNumber,
  VAT: OptionalNumber,
  amountVAT: OptionalNumber,
});
export type PosAmount = z.output<typeof PosAmountSchema>;

const IdNameSchema = looseObject({ _id: OptionalId, name: OptionalText });

/**
 * Only `_id` and `count` are required: a movement is matched to articles through whichever of the
 * nested article identifiers are present, and to a sale through `warehouseOperation.receipt`.
 */
export const PosMovementSchema = looseObject({
  _id: PosId,
  count: PosNumber,
  unit: optionalObject(looseObject({ _id: OptionalId, code: OptionalId, name: OptionalText })),
  article: optionalObject(
    looseObject({
      _id: OptionalId,
      name: OptionalText,
      plu: OptionalNumber,
      ean: OptionalText,
      internalIdentifier: OptionalId,
      measureUnit: OptionalText,
    }),
  ),
  warehouseOperation: optionalObject(
    looseObject({
      _id: OptionalId,
      number: OptionalId,
      currency: OptionalText,
      price: optionalObject(PosAmountSchema),
      createdAt: OptionalText,
      type: OptionalNumber,
      receipt: optionalObject(looseObject({ _id: OptionalId, number: OptionalId, cashier: optionalObject(IdNameSchema) })),
      supplier: optionalObject(IdNameSchema),
    }),
  ),
});
export type PosMovement = z.output<typeof PosMovementSchema>;

// ---------------------------------------------------------------------------------------------------
// 2.5 Client

export const PosAddressSchema = looseObject({
  city: OptionalText,
  street: OptionalText,
  buildingNumber: OptionalId,
  ZIP: OptionalId,
  country: OptionalText,
});
export type PosAddress = z.output<typeof PosAddressSchema>;

/** The address-book client record (2.5); named "record" to keep it apart from the HTTP client. */
export const PosClientRecordSchema = looseObject({
  _id: OptionalId,
  externalId: OptionalId,
  clientCardIdentifier: OptionalId,
  email: OptionalText,
  phone: OptionalText,
  address: optionalObject(PosAddressSchema),
  company: optionalObject(
    looseObject({ address: optionalObject(PosAddressSchema), name: OptionalText, TIN: OptionalId, VATID: OptionalText }),
  ),
  clientPoints: OptionalNumber,
  dateOfBirth: OptionalText,
  reverseChargeEU: OptionalBoolean,
  note: OptionalText,
});
export type PosClientRecord = z.output<typeof PosClientRecordSchema>;

/** `data` of client get: a client, or nothing when none matched (the interface does not say which). */
export const PosClientDataSchema = PosClientRecordSchema.nullish().transform((value) => value ?? undefined);

// ---------------------------------------------------------------------------------------------------
// 2.6 Receipt, 2.7 Client points change

const LocalIdRefSchema = looseObject({ localId: OptionalId });

export const PosReceiptSchema = looseObject({
  number: OptionalId,
  total: optionalObject(PosAmountSchema),
  localId: OptionalId,
  tip: OptionalNumber,
  note: OptionalText,
  table: OptionalId,
  /** ReceiptState; only `open` is documented, so any text is accepted. */
  state: OptionalText,
  /** PaymentType; only `transfer` is documented, so any text is accepted. */
  paymentType: OptionalText,
  device: optionalObject(looseObject({ localId: OptionalId, uuid: OptionalText })),
  cashier: optionalObject(LocalIdRefSchema),
  client: optionalObject(LocalIdRefSchema),
});
export type PosReceipt = z.output<typeof PosReceiptSchema>;

export const PosClientPointsSchema = looseObject({
  received: OptionalNumber,
  spent: OptionalNumber,
  balance: OptionalNumber,
  client: optionalObject(LocalIdRefSchema),
  receipt: optionalObject(looseObject({ localId: OptionalId, number: OptionalId })),
});
export type PosClientPoints = z.output<typeof PosClientPointsSchema>;

// ---------------------------------------------------------------------------------------------------
// Part 6: webhook events

export const POS_SALE_EVENT = 'accounting.receipt.sale';
export const POS_CLIENT_POINTS_EVENT = 'address-book.client.points';

/** The envelope every event shares; `data` is checked per kind by `PosWebhookEventSchema`. */
export const PosWebhookEnvelopeSchema = looseObject({
  timestamp: RequiredText,
  event: RequiredText,
  accountId: OptionalId,
  unitId: OptionalId,
  data: z.unknown().optional(),
});
export type PosWebhookEnvelope = z.output<typeof PosWebhookEnvelopeSchema>;

const EventData = z.looseObject({}, { error: 'expected an object' });

/** `accounting.receipt.sale`; one form carries `unitId` and `accountId`, the other neither. */
export const PosSaleEventSchema = looseObject({
  timestamp: RequiredText,
  event: z.literal(POS_SALE_EVENT),
  accountId: OptionalId,
  unitId: OptionalId,
  data: EventData.pipe(PosReceiptSchema),
});
export type PosSaleEvent = z.output<typeof PosSaleEventSchema>;

/** `address-book.client.points`. */
export const PosClientPointsEventSchema = looseObject({
  timestamp: RequiredText,
  event: z.literal(POS_CLIENT_POINTS_EVENT),
  accountId: OptionalId,
  unitId: OptionalId,
  data: EventData.pipe(PosClientPointsSchema),
});
export type PosClientPointsEvent = z.output<typeof PosClientPointsEventSchema>;

/**
 * A parsed webhook body. `kind` tells the known kinds apart; an unknown `event` is still a valid body
 * (docs/webhooks.md: answered 200, ignored, counted), so it parses with `kind: 'unknown'`.
 */
export type PosWebhookEvent =
  | ({ readonly kind: 'sale' } & PosSaleEvent)
  | ({ readonly kind: 'client-points' } & PosClientPointsEvent)
  | ({ readonly kind: 'unknown' } & PosWebhookEnvelope);

/**
 * Validates a webhook body: the envelope always, `data` by the event's kind. Issues of `data` keep
 * their path (`data.total.amount: expected a number`) so the 400 answer can name the problem.
 *
 * @example
 * const parsed = PosWebhookEventSchema.safeParse(JSON.parse(body));
 * if (parsed.success && parsed.data.kind === 'sale') applySale(parsed.data.unitId, parsed.data.data);
 */
export const PosWebhookEventSchema = PosWebhookEnvelopeSchema.transform((envelope, ctx): PosWebhookEvent => {
  const known =
    envelope.event === POS_SALE_EVENT
      ? { kind: 'sale' as const, schema: PosSaleEventSchema }
      : envelope.event === POS_CLIENT_POINTS_EVENT
        ? { kind: 'client-points' as const, schema: PosClientPointsEventSchema }
        : undefined;
  if (known === undefined) return { kind: 'unknown', ...envelope };
  const parsed = known.schema.safeParse(envelope);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path, input: issue.input });
    }
    return z.NEVER;
  }
  return known.kind === 'sale'
    ? { kind: 'sale', ...(parsed.data as PosSaleEvent) }
    : { kind: 'client-points', ...(parsed.data as PosClientPointsEvent) };
});

// ---------------------------------------------------------------------------------------------------
// Per-item tolerant lists (Renovate's LooseArray idea)

/** One list item that failed its schema: where it was, which item (when it had an id) and why. */
export interface PosRejectedItem {
  readonly id?: string;
  /** 0-based position in the whole list (page offset included). */
  readonly index: number;
  readonly issues: readonly string[];
}

export interface LooseListResult<T> {
  readonly items: T[];
  readonly rejected: PosRejectedItem[];
}

export interface LooseListOptions {
  /** Position of the first item in the whole list (the page's `skip`). */
  readonly offset?: number;
  /** Identifier of a raw item for the report; defaults to `posItemId`. */
  readonly idOf?: (raw: unknown) => string | undefined;
}

/** Best-effort identifier of a raw item for reports: `localId`, else `_id`, else `code`. */
export function posItemId(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const record = raw as Record<string, unknown>;
  for (const key of ['localId', '_id', 'code']) {
    const value = record[key];
    if (typeof value === 'string' && !isBlank(value)) return value;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  }
  return undefined;
}

/** `path: message` lines of a zod error, e.g. `salesPrice: expected a number`. */
export function formatIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return path === '' ? issue.message : `${path}: ${issue.message}`;
  });
}

/**
 * Validates a list item by item: good items are kept (in order), bad ones are reported with their
 * position, id and reasons. Never throws, whatever the input: an array is a list, a single object is
 * a one-item list (quirk 3), `null`/`undefined` is an empty list, anything else is one rejected entry.
 *
 * @example
 * const { items, rejected } = parseLooseList(page.items, SourceArticleSchema, { offset: skip });
 */
export function parseLooseList<Schema extends z.ZodType>(
  input: unknown,
  itemSchema: Schema,
  options: LooseListOptions = {},
): LooseListResult<z.output<Schema>> {
  const offset = options.offset ?? 0;
  const idOf = options.idOf ?? posItemId;
  const items: z.output<Schema>[] = [];
  const rejected: PosRejectedItem[] = [];
  if (input === null || input === undefined) return { items, rejected };
  if (typeof input !== 'object') {
    rejected.push({ index: offset, issues: [`expected a list of items, got ${typeof input}`] });
    return { items, rejected };
  }
  const list: readonly unknown[] = Array.isArray(input) ? input : [input];
  for (const [position, raw] of list.entries()) {
    const index = offset + position;
    let issues: string[];
    try {
      const parsed = itemSchema.safeParse(raw);
      if (parsed.success) {
        items.push(parsed.data);
        continue;
      }
      issues = formatIssues(parsed.error);
    } catch (error) {
      // A schema bug must cost one item, not the whole list.
      issues = [`item could not be validated: ${error instanceof Error ? error.message : String(error)}`];
    }
    const id = safeId(idOf, raw);
    rejected.push(id === undefined ? { index, issues } : { id, index, issues });
  }
  return { items, rejected };
}

function safeId(idOf: (raw: unknown) => string | undefined, raw: unknown): string | undefined {
  try {
    return idOf(raw);
  } catch {
    return undefined;
  }
}
