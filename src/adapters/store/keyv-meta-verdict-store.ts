import type { Keyv } from 'keyv';
import { z } from 'zod';
import type { MetaDiagnostics, MetaItemIssue, MetaItemIssues } from '../../core/push/meta-verdicts.js';
import type { MetaVerdictStore } from '../../services/push/meta-verdicts.js';

/**
 * Meta's verdicts in the catalog's store (docs/channel-push.md#metas-verdicts): the items Meta found invalid
 * under one key (at most 5,000, up to ~3 MB with long messages) as one JSON text (keyv's own serializer walks
 * an array value in JavaScript, several times slower), and the catalog's diagnostics under another. Scoped by the catalog id, so another catalog's verdicts are never shown. Only the leader writes.
 * What is read back is checked: a row written by another version, or damaged, is left out, never shown half.
 */

/** `rows`: the JSON text of [retailer id, message, at, sentAt] rows, oldest first (`items`: the same as an array, as first written). */
const StoredItemsSchema = z.object({
  catalog: z.string(),
  rows: z.string().optional(),
  items: z.array(z.unknown()).optional(),
});

const ItemRowSchema = z.tuple([z.string(), z.string(), z.string(), z.string()]);

const DiagnosticSchema = z.object({
  type: z.string(),
  severity: z.string(),
  title: z.string(),
  subtitle: z.string().optional(),
  items: z.number().optional(),
  channels: z.array(z.string()).optional(),
});

const StoredDiagnosticsSchema = z.object({
  catalog: z.string(),
  readAt: z.string().optional(),
  groups: z.array(z.unknown()),
  lastError: z.object({ at: z.string(), message: z.string() }).optional(),
});

export function createKeyvMetaVerdictStore(keyv: Keyv, options: { readonly catalogId: string }): MetaVerdictStore {
  const itemsKey = 'verdicts:meta:items';
  const diagnosticsKey = 'verdicts:meta:diagnostics';
  /** The text last read or written, and its items. */
  let last: { readonly rows: string; readonly items: MetaItemIssues } | undefined;
  return {
    async items() {
      const stored = StoredItemsSchema.safeParse(await keyv.get(itemsKey));
      if (!stored.success || stored.data.catalog !== options.catalogId) return new Map();
      const { rows, items: array } = stored.data;
      // A follower reads every 30 s: the same text is not parsed again.
      if (rows !== undefined && rows === last?.rows) return last.items;
      let raws: unknown[] = array ?? [];
      if (rows !== undefined) {
        try {
          const parsed: unknown = JSON.parse(rows);
          raws = Array.isArray(parsed) ? parsed : [];
        } catch {
          raws = [];
        }
      }
      const items = new Map<string, MetaItemIssue>();
      for (const raw of raws) {
        const row = ItemRowSchema.safeParse(raw);
        if (row.success) items.set(row.data[0], { message: row.data[1], at: row.data[2], sentAt: row.data[3] });
      }
      if (rows !== undefined) last = { rows, items };
      return items;
    },
    async saveItems(items: MetaItemIssues) {
      const rows = JSON.stringify([...items].map(([id, issue]) => [id, issue.message, issue.at, issue.sentAt]));
      await keyv.set(itemsKey, { catalog: options.catalogId, rows });
      last = { rows, items };
    },
    async diagnostics() {
      const stored = StoredDiagnosticsSchema.safeParse(await keyv.get(diagnosticsKey));
      if (!stored.success || stored.data.catalog !== options.catalogId) return undefined;
      const { readAt, lastError } = stored.data;
      const groups = stored.data.groups.flatMap((raw) => {
        const group = DiagnosticSchema.safeParse(raw);
        if (!group.success) return [];
        const { subtitle, items, channels, ...required } = group.data;
        return [
          {
            ...required,
            ...(subtitle === undefined ? {} : { subtitle }),
            ...(items === undefined ? {} : { items }),
            ...(channels === undefined ? {} : { channels }),
          },
        ];
      });
      return { groups, ...(readAt === undefined ? {} : { readAt }), ...(lastError === undefined ? {} : { lastError }) };
    },
    async saveDiagnostics(diagnostics: MetaDiagnostics) {
      await keyv.set(diagnosticsKey, { catalog: options.catalogId, ...diagnostics });
    },
  };
}
