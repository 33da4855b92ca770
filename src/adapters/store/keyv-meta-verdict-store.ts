import type { Keyv } from 'keyv';
import type { MetaDiagnostics, MetaItemIssue, MetaItemIssues } from '../../core/push/meta-verdicts.js';
import type { MetaVerdictStore } from '../../services/push/meta-verdicts.js';

/**
 * Meta's verdicts in the catalog's store (docs/channel-push.md#metas-verdicts): the items Meta found invalid
 * under one key (bounded: a few thousand at most, a few hundred kilobytes) and the catalog's diagnostics under
 * another. Scoped by the catalog id, so another catalog's verdicts are never shown. Only the leader writes.
 */

interface StoredItems {
  readonly catalog: string;
  /** [retailer id, message, at], oldest first. */
  readonly items: readonly (readonly [string, string, string])[];
}

interface StoredDiagnostics extends MetaDiagnostics {
  readonly catalog: string;
}

export function createKeyvMetaVerdictStore(keyv: Keyv, options: { readonly catalogId: string }): MetaVerdictStore {
  const itemsKey = 'verdicts:meta:items';
  const diagnosticsKey = 'verdicts:meta:diagnostics';
  return {
    async items() {
      const stored = (await keyv.get(itemsKey)) as StoredItems | undefined;
      if (stored?.catalog !== options.catalogId || !Array.isArray(stored.items)) return new Map();
      return new Map<string, MetaItemIssue>(stored.items.map(([id, message, at]) => [id, { message, at }]));
    },
    async saveItems(items: MetaItemIssues) {
      const rows = [...items].map(([id, issue]) => [id, issue.message, issue.at] as const);
      await keyv.set(itemsKey, { catalog: options.catalogId, items: rows } satisfies StoredItems);
    },
    async diagnostics() {
      const stored = (await keyv.get(diagnosticsKey)) as StoredDiagnostics | undefined;
      if (stored?.catalog !== options.catalogId || !Array.isArray(stored.groups)) return undefined;
      const { catalog: _catalog, ...diagnostics } = stored;
      return diagnostics;
    },
    async saveDiagnostics(diagnostics) {
      await keyv.set(diagnosticsKey, { catalog: options.catalogId, ...diagnostics } satisfies StoredDiagnostics);
    },
  };
}
