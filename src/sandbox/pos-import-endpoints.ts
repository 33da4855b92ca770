import type { EndpointDefinition } from './pos-endpoint.js';
import { ImportedArticleSchema, ImportedClientSchema, importItems, issueText } from './pos-request-reading.js';
import type { PosClient } from './pos-resources.js';
import { readJsonBody } from './request-body.js';
import { invalidReply, jsonReply, okEnvelope } from './sandbox-replies.js';
import type { SandboxState } from './sandbox-state.js';

/** The writes of interface 4.8-4.9: client import and assortment import. */

export function clientImportEndpoint(state: SandboxState): EndpointDefinition {
  return {
    endpoint: 'client-import',
    media: 'json',
    handle(req) {
      const parsed = readJsonBody(req);
      if (!parsed.ok) return invalidReply([parsed.message]);
      const items = importItems(parsed.value, 'clients');
      if (items === undefined || items.length === 0)
        return invalidReply(['Body must be a client, an array of clients or { items: [...] }']);
      const errors: string[] = [];
      const ids: string[] = [];
      items.forEach((item, position) => {
        const client = ImportedClientSchema.safeParse(item);
        if (!client.success) {
          errors.push(`items[${position}]: ${issueText(client.error)}`);
          return;
        }
        const data = client.data;
        const existing = state.clients.findIndex(
          (candidate) =>
            (data._id !== undefined && candidate._id === data._id) ||
            (data.externalId !== undefined && candidate.externalId === data.externalId),
        );
        const previous = existing >= 0 ? state.clients[existing] : undefined;
        const merged: PosClient = { ...previous, ...data, _id: data._id ?? previous?._id ?? state.mintId('client') };
        if (existing >= 0) state.clients[existing] = merged;
        else state.clients.push(merged);
        ids.push(merged._id);
      });
      return jsonReply({
        isValid: errors.length === 0,
        errors,
        warnings: [],
        messages: [`Imported ${ids.length} of ${items.length} clients`],
        data: { imported: ids.length, ids },
      });
    },
    empty: () => jsonReply(okEnvelope({ imported: 0, ids: [] })),
  };
}

export function assortmentImportEndpoint(state: SandboxState): EndpointDefinition {
  return {
    endpoint: 'assortment-import',
    media: 'json',
    handle(req) {
      const parsed = readJsonBody(req);
      if (!parsed.ok) return invalidReply([parsed.message]);
      const items = importItems(parsed.value, 'articles');
      if (items === undefined || items.length === 0)
        return invalidReply(['Body must be an article, an array of articles or { items: [...] }']);
      const errors: string[] = [];
      const warnings: string[] = [];
      let imported = 0;
      items.forEach((item, position) => {
        const article = ImportedArticleSchema.safeParse(item);
        if (!article.success) {
          errors.push(`items[${position}]: ${issueText(article.error)}`);
          return;
        }
        const index = state.catalog.indexOfLocalId(article.data.localId);
        if (index === undefined) {
          warnings.push(`items[${position}]: article "${article.data.localId}" is not in the simulated catalog; ignored`);
          return;
        }
        const { name, salesPrice } = article.data;
        state.overrideArticle(index, {
          ...(name !== undefined ? { name } : {}),
          ...(salesPrice !== undefined ? { salesPrice } : {}),
        });
        imported += 1;
      });
      return jsonReply({
        isValid: errors.length === 0,
        errors,
        warnings,
        messages: [`Imported ${imported} of ${items.length} articles`],
        data: { imported },
      });
    },
    empty: () => jsonReply(okEnvelope({ imported: 0 })),
  };
}
