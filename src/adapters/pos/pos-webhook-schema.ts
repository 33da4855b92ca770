import { z } from 'zod';
import {
  POS_CLIENT_POINTS_EVENT,
  POS_SALE_EVENT,
  type PosClientPoints,
  type PosClientPointsEvent,
  type PosReceipt,
  type PosSaleEvent,
  type PosWebhookEnvelope,
  type PosWebhookEvent,
} from '../../core/catalog/pos-records.js';
import { PosAmountSchema } from './pos-movement-schema.js';
import { looseObject, OptionalId, OptionalNumber, OptionalText, optionalObject, RequiredText } from './pos-schema-primitives.js';

/** Receipts and client points (docs/pos-interface.md, 2.6 and 2.7), and the webhook events that carry them (part 6). */

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
}) satisfies z.ZodType<PosReceipt>;

export const PosClientPointsSchema = looseObject({
  received: OptionalNumber,
  spent: OptionalNumber,
  balance: OptionalNumber,
  client: optionalObject(LocalIdRefSchema),
  receipt: optionalObject(looseObject({ localId: OptionalId, number: OptionalId })),
}) satisfies z.ZodType<PosClientPoints>;

// ---------------------------------------------------------------------------------------------------
// Part 6: webhook events

/** The envelope every event shares; `data` is checked per kind by `PosWebhookEventSchema`. */
export const PosWebhookEnvelopeSchema = looseObject({
  timestamp: RequiredText,
  event: RequiredText,
  accountId: OptionalId,
  unitId: OptionalId,
  data: z.unknown().optional(),
}) satisfies z.ZodType<PosWebhookEnvelope>;

const EventData = z.looseObject({}, { error: 'expected an object' });

/** `accounting.receipt.sale`; one form carries `unitId` and `accountId`, the other neither. */
export const PosSaleEventSchema = looseObject({
  timestamp: RequiredText,
  event: z.literal(POS_SALE_EVENT),
  accountId: OptionalId,
  unitId: OptionalId,
  data: EventData.pipe(PosReceiptSchema),
}) satisfies z.ZodType<PosSaleEvent>;

/** `address-book.client.points`. */
export const PosClientPointsEventSchema = looseObject({
  timestamp: RequiredText,
  event: z.literal(POS_CLIENT_POINTS_EVENT),
  accountId: OptionalId,
  unitId: OptionalId,
  data: EventData.pipe(PosClientPointsSchema),
}) satisfies z.ZodType<PosClientPointsEvent>;

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
