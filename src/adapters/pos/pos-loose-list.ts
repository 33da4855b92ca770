import type { z } from 'zod';
import type { PosRejectedItem } from '../../core/catalog/pos-records.js';
import { isBlank } from './pos-schema-primitives.js';

// ---------------------------------------------------------------------------------------------------
// Per-item tolerant lists (Renovate's LooseArray idea)

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
