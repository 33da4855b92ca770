import type { PushBatchItem } from '../../../src/core/push/channel-client.js';
import { buildMetaFullRequest, buildMetaRequest, type MetaBatchRequest } from '../../../src/core/push/payloads/meta.js';
import { CASES } from '../../unit/core/push/payloads/push-fixtures.js';

/**
 * Meta `items_batch` entries for the client's integration tests, made by the payload builders from a product
 * on sale: a field update (availability), the whole item (FULL, `allow_upsert`), or a deletion.
 */
export function metaBatchItem(id: string, kind: 'availability' | 'whole' | 'remove', gen = 1): PushBatchItem<MetaBatchRequest> {
  const item = { ...CASES.sale(), id };
  const options = { currency: 'CZK' };
  const result =
    kind === 'whole'
      ? buildMetaFullRequest(id, item, options)
      : buildMetaRequest(
          id,
          kind === 'remove' ? undefined : item,
          kind === 'remove' ? { kind } : { kind: 'update', fields: ['availability'] },
          options,
        );
  if (result.kind !== 'send') throw new Error(`no ${kind} request for ${id}: ${result.reason}`);
  return { target: `m:${id}`, gen, payload: result.payload };
}
