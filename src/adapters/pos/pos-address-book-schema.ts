import type { z } from 'zod';
import type { PosAddress, PosClientRecord } from '../../core/catalog/pos-records.js';
import {
  looseObject,
  OptionalBoolean,
  OptionalId,
  OptionalNumber,
  OptionalText,
  optionalObject,
} from './pos-schema-primitives.js';

// ---------------------------------------------------------------------------------------------------
// 2.5 Client

export const PosAddressSchema = looseObject({
  city: OptionalText,
  street: OptionalText,
  buildingNumber: OptionalId,
  ZIP: OptionalId,
  country: OptionalText,
}) satisfies z.ZodType<PosAddress>;

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
}) satisfies z.ZodType<PosClientRecord>;

/** `data` of client get: a client, or nothing when none matched (the interface does not say which). */
export const PosClientDataSchema = PosClientRecordSchema.nullish().transform((value) => value ?? undefined);
