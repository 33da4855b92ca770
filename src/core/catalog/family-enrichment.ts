import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { CatalogSnapshot, Product, ProductEnrichment } from './catalog.js';
import { slotOfPosition } from './catalog-chunks.js';

/**
 * The enrichment sheet's values of a catalog family, kept out of the main thread's product objects
 * (docs/decisions/0011-enrichment-sheet.md#memory). The served chunks carry every product's values (feeds, the store and the
 * fingerprint read them there); the main thread's products, which it keeps for stock changes and lookups,
 * would hold them a second time as JS strings (Czech text at two bytes a character: ~190 MB for a
 * 100,000-row sheet with descriptions). Instead, per chunk slot, the values are kept as one compressed JSON
 * text, and per product a 32-bit tag of its values tells the changes feed whether they changed.
 * A family's products keep their places and their values (a new sheet makes a new family), so a chunk
 * serialized again after stock changes takes the values of its slot back from here.
 */
export interface FamilyEnrichment {
  /** Per chunk slot, the deflated JSON array of its products' values (`null`: none); `undefined`: no product of the slot has any. */
  readonly slots: readonly (Uint8Array | undefined)[];
  /** Per chunk slot, the position of its first product. */
  readonly starts: Int32Array;
  /** Per product position, a tag of its values' JSON (0: it has none). */
  readonly tags: Uint32Array;
}

export interface FamilyEnrichmentCollector {
  /** Takes the values off freshly parsed products of the next slot (in place), keeping them here. */
  take(products: readonly Product[]): void;
  /**
   * Keeps for the next slot the values slot `slot` of `family` has (or none, without a family): a slot whose
   * products are reused from a served version, whose values are not on them.
   */
  reuse(family: FamilyEnrichment | undefined, slot: number, count: number): void;
  /** What was taken; `undefined` when no product had values. */
  finish(): FamilyEnrichment | undefined;
}

/** Collects a family's values slot by slot as its chunks are parsed (`served-catalog.ts`). */
export function createFamilyEnrichmentCollector(): FamilyEnrichmentCollector {
  const slots: (Uint8Array | undefined)[] = [];
  const starts: number[] = [];
  const tags: number[] = [];
  let any = false;
  return {
    take(products) {
      starts.push(tags.length);
      let texts: string[] | undefined;
      for (const [index, product] of products.entries()) {
        const values = product.enrichment;
        if (values === undefined) {
          tags.push(0);
          continue;
        }
        // The values are the last property of a serialized product: deleting it keeps the object's fast shape.
        delete (product as { enrichment?: ProductEnrichment }).enrichment;
        const text = JSON.stringify(values);
        texts ??= new Array<string>(products.length).fill('null');
        texts[index] = text;
        tags.push(tagOf(text));
      }
      if (texts !== undefined) any = true;
      slots.push(texts === undefined ? undefined : deflateRawSync(`[${texts.join(',')}]`, { level: 1 }));
    },
    reuse(family, slot, count) {
      starts.push(tags.length);
      const start = family?.starts[slot] ?? 0;
      for (let index = 0; index < count; index += 1) tags.push(family?.tags[start + index] ?? 0);
      const bytes = family?.slots[slot];
      if (bytes !== undefined) any = true;
      slots.push(bytes);
    },
    finish() {
      return any ? { slots, starts: Int32Array.from(starts), tags: Uint32Array.from(tags) } : undefined;
    },
  };
}

/** The values of slot `slot`'s products, in order (`undefined` for a product without). */
export function slotEnrichment(family: FamilyEnrichment, slot: number): readonly (ProductEnrichment | undefined)[] | undefined {
  const bytes = family.slots[slot];
  if (bytes === undefined) return undefined;
  const values = JSON.parse(inflateRawSync(bytes).toString('utf8')) as (ProductEnrichment | null)[];
  return values.map((value) => value ?? undefined);
}

/** The products of a slot with their values back on, for serializing the slot again. */
export function withSlotEnrichment(
  products: readonly Product[],
  values: readonly (ProductEnrichment | undefined)[] | undefined,
): readonly Product[] {
  if (values === undefined) return products;
  return products.map((product, index) => {
    const enrichment = values[index];
    return enrichment === undefined ? product : { ...product, enrichment };
  });
}

/** FNV-1a of the values' JSON; never 0, which means "no values". */
function tagOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0 || 1;
}

const families = new WeakMap<CatalogSnapshot, FamilyEnrichment>();

/** Says where a served snapshot's values are (a version made by stock changes shares its base's). */
export function setFamilyEnrichment(snapshot: CatalogSnapshot, enrichment: FamilyEnrichment | undefined): void {
  if (enrichment !== undefined) families.set(snapshot, enrichment);
}

/** The tags of a served snapshot whose products' values were taken off (`undefined`: they are on its products). */
export function familyEnrichmentTags(snapshot: CatalogSnapshot): Uint32Array | undefined {
  return families.get(snapshot)?.tags;
}

/** Reads a family's values by position; the last slot read is kept, so reading in position order decodes each once. */
function createValueReader(family: FamilyEnrichment): (position: number) => ProductEnrichment | undefined {
  let slot = -1;
  let values: readonly (ProductEnrichment | undefined)[] | undefined;
  return (position) => {
    if (family.tags[position] === 0) return undefined;
    const wanted = slotOfPosition(family.starts.length, (slot) => family.starts[slot] ?? 0, position);
    if (wanted !== slot) {
      slot = wanted;
      values = slotEnrichment(family, wanted);
    }
    return values?.[position - (family.starts[wanted] ?? 0)];
  };
}

/** A snapshot's products with their values on (what feeds rendered in this thread and `changes.json` need). */
export function createEnrichedProducts(snapshot: CatalogSnapshot): { at(position: number): Product | undefined } {
  const family = families.get(snapshot);
  const valuesAt = family === undefined ? undefined : createValueReader(family);
  return {
    at(position) {
      const product = snapshot.products[position];
      const enrichment = product === undefined ? undefined : valuesAt?.(position);
      return enrichment === undefined ? product : { ...(product as Product), enrichment };
    },
  };
}

/**
 * The products at `positions` (of a version of `family`) with the family's values on: a stock change as
 * another instance of a group applies it, whole, whatever that instance keeps off its products.
 */
export function productsWithValues(
  family: FamilyEnrichment | undefined,
  products: readonly Product[],
  positions: readonly number[],
): Product[] {
  const valuesAt = family === undefined ? undefined : createValueReader(family);
  return positions.map((position) => {
    const product = products[position] as Product;
    const enrichment = valuesAt?.(position);
    return enrichment === undefined ? product : { ...product, enrichment };
  });
}

/** A product without values of its own (its family keeps them). */
export function withoutValues(product: Product): Product {
  if (product.enrichment === undefined) return product;
  const { enrichment: _kept, ...rest } = product;
  return rest;
}

/**
 * The tag of the values of the product at `position` of `snapshot`: from the family's tags when its values
 * were taken off its products, else from the product's own values (a snapshot built in this thread).
 */
export function enrichmentTagAt(snapshot: CatalogSnapshot, position: number): number {
  const tags = families.get(snapshot)?.tags;
  if (tags !== undefined) return tags[position] ?? 0;
  const values = snapshot.products[position]?.enrichment;
  return values === undefined ? 0 : tagOf(JSON.stringify(values));
}
