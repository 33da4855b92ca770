import type { Request } from 'express';
import { z } from 'zod';
import { readJsonBody } from './request-body.js';
import { invalidReply, type Reply } from './sandbox-replies.js';

/** Reading the sandbox POS's request bodies (`pos-routes.ts`): paging, price output, dates, imports. */

/** Largest page the list operations return, whatever `limit` asks (interface part 8 leaves it open). */
export const PAGE_SIZE_CAP = 200;
/** Page size when `limit` is omitted. */
export const DEFAULT_PAGE_SIZE = 50;
const PRICE_OUTPUTS = ['with_vat', 'without_vat'] as const;
export type PriceOutput = (typeof PRICE_OUTPUTS)[number];

export type ObjectBody =
  | { readonly ok: true; readonly body: Record<string, unknown> }
  | { readonly ok: false; readonly reply: Reply };

export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** JSON object body of a POST operation; an absent body counts as `{}` (every field optional). */
export function objectBody(req: Request): ObjectBody {
  const parsed = readJsonBody(req);
  if (!parsed.ok) return { ok: false, reply: invalidReply([parsed.message]) };
  if (parsed.value === undefined) return { ok: true, body: {} };
  const body = asRecord(parsed.value);
  if (body === undefined) return { ok: false, reply: invalidReply(['Request body must be a JSON object']) };
  return { ok: true, body };
}

export function readPaging(body: Record<string, unknown>, errors: string[]): { limit: number; skip: number } {
  const { limit = DEFAULT_PAGE_SIZE, skip = 0 } = body;
  let pageSize = DEFAULT_PAGE_SIZE;
  let offset = 0;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit <= 0) errors.push('limit must be a positive integer');
  else pageSize = Math.min(limit, PAGE_SIZE_CAP);
  if (typeof skip !== 'number' || !Number.isInteger(skip) || skip < 0) errors.push('skip must be a non-negative integer');
  else offset = skip;
  return { limit: pageSize, skip: offset };
}

export function readPriceOutput(body: Record<string, unknown>, errors: string[]): PriceOutput {
  if (body.options === undefined) return 'with_vat';
  const options = asRecord(body.options);
  if (options === undefined) {
    errors.push('options must be an object');
    return 'with_vat';
  }
  const value = options.priceOutput;
  if (value === undefined) return 'with_vat';
  const known = PRICE_OUTPUTS.find((candidate) => candidate === value);
  if (known === undefined) errors.push(`options.priceOutput must be one of ${PRICE_OUTPUTS.join(', ')}`);
  return known ?? 'with_vat';
}

/** Parses an ISO date or timestamp; a bare date as `dateTo` means the end of that day (inclusive). */
export function readDate(value: unknown, name: string, endOfDay: boolean, errors: string[]): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) {
    errors.push(`filter.${name} must be an ISO 8601 date or timestamp`);
    return undefined;
  }
  // A bare date is midnight UTC; a timestamp without a zone is read as UTC too, never as server-local time.
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/.test(value);
  const time = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : hasZone ? value : `${value}Z`);
  if (Number.isNaN(time)) {
    errors.push(`filter.${name} is not a valid date`);
    return undefined;
  }
  return value.length === 10 && endOfDay ? time + 86_399_999 : time;
}

export function readOptionalString(
  record: Record<string, unknown>,
  name: string,
  prefix: string,
  errors: string[],
): string | undefined {
  const value = record[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    errors.push(`${prefix}${name} must be a string`);
    return undefined;
  }
  return value;
}

export const AddressSchema = z.object({
  city: z.string().exactOptional(),
  street: z.string().exactOptional(),
  buildingNumber: z.string().exactOptional(),
  ZIP: z.string().exactOptional(),
  country: z.string().exactOptional(),
});

export const ImportedClientSchema = z
  .object({
    _id: z.string().min(1).exactOptional(),
    externalId: z.string().min(1).exactOptional(),
    clientCardIdentifier: z.string().min(1).exactOptional(),
    email: z.string().min(3).exactOptional(),
    phone: z.string().min(3).exactOptional(),
    address: AddressSchema.exactOptional(),
    company: z
      .object({
        address: AddressSchema.exactOptional(),
        name: z.string().exactOptional(),
        TIN: z.string().exactOptional(),
        VATID: z.string().exactOptional(),
      })
      .exactOptional(),
    clientPoints: z.number().exactOptional(),
    dateOfBirth: z.string().exactOptional(),
    reverseChargeEU: z.boolean().exactOptional(),
    note: z.string().exactOptional(),
  })
  .refine(
    (client) =>
      [client._id, client.externalId, client.clientCardIdentifier, client.email, client.phone].some((v) => v !== undefined),
    'needs at least one of _id, externalId, clientCardIdentifier, email, phone',
  );

export const ImportedArticleSchema = z.object({
  localId: z.string().min(1),
  name: z.string().min(1).max(250).exactOptional(),
  salesPrice: z.number().positive().exactOptional(),
});

/** `[...]`, `{ items: [...] }` or a single object: the interface does not show the import body. */
export function importItems(body: unknown, listKey: string): unknown[] | undefined {
  if (Array.isArray(body)) return body;
  const record = asRecord(body);
  if (record === undefined) return undefined;
  for (const key of ['items', listKey]) {
    const list = record[key];
    if (Array.isArray(list)) return list;
  }
  return [record];
}

export function issueText(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}
