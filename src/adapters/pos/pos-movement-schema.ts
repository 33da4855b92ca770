import type { z } from 'zod';
import type { PosAmount, PosMovement } from '../../core/catalog/pos-records.js';
import {
  looseObject,
  OptionalId,
  OptionalNumber,
  OptionalText,
  optionalObject,
  PosId,
  PosNumber,
} from './pos-schema-primitives.js';

// ---------------------------------------------------------------------------------------------------
// 2.4 Stock movement

/** Amount object: `amount` (without VAT), `VAT`, `amountVAT` (with VAT). */
export const PosAmountSchema = looseObject({
  amount: OptionalNumber,
  VAT: OptionalNumber,
  amountVAT: OptionalNumber,
}) satisfies z.ZodType<PosAmount>;

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
}) satisfies z.ZodType<PosMovement>;
