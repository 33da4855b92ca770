import { type FieldPath, WAREHOUSE_VALUE } from './price-list-values.js';

/** The price-list elements the parser reads, and the cheap forms of their names and texts (measured hot). */

const FIELD_PATHS: readonly FieldPath[] = [
  'CODE',
  'EAN',
  'PLU',
  'PRICE_VAT',
  'PRICE',
  'ACTION_PRICE',
  'STANDARD_PRICE',
  'CURRENCY',
  'AVAILABILITY_IN_STOCK',
  'AVAILABILITY_OUT_OF_STOCK',
  'STOCK',
  'STOCK/AMOUNT',
];

/**
 * The element paths we read, relative to a SHOPITEM or VARIANT, as a tree: an open element finds its
 * node with one map lookup on its parent's node, so no path string is built per element (measured hot).
 */
export interface PathNode {
  field: FieldPath | typeof WAREHOUSE_VALUE | undefined;
  readonly children: Map<string, PathNode>;
}

function buildPathTree(fields: readonly (FieldPath | typeof WAREHOUSE_VALUE)[], containers: readonly string[]): PathNode {
  const root: PathNode = { field: undefined, children: new Map() };
  function nodeAt(path: string): PathNode {
    let node = root;
    for (const name of path.split('/')) {
      let child = node.children.get(name);
      if (child === undefined) {
        child = { field: undefined, children: new Map() };
        node.children.set(name, child);
      }
      node = child;
    }
    return node;
  }
  for (const path of containers) nodeAt(path);
  for (const path of fields) nodeAt(path).field = path;
  return root;
}

export const PATH_ROOT = buildPathTree([...FIELD_PATHS, WAREHOUSE_VALUE], ['VARIANTS']);
export const VARIANTS_NODE = PATH_ROOT.children.get('VARIANTS');

/**
 * A flat copy of a short string. saxes hands out text as slices of the current chunk, and V8 keeps a
 * sliced string's whole parent alive: one retained 13-character EAN would pin its 64 KiB chunk, and a
 * sync keeping 100k rows would pin the whole document (measured in ADR 0002). A UTF-16 round trip is lossless.
 */
export function detach(text: string): string {
  return text.length < 13 ? text : Buffer.from(text, 'utf16le').toString('utf16le');
}

/**
 * Availability labels and the currency repeat in every item of every unit (a handful of distinct texts in
 * 100,000 items): one shared copy of each instead of one string per row. The labels end up in every offer
 * of the catalog, where per-row copies cost ~75 MB for 100,000 articles × 5 units (bench/full-sync.ts).
 * Bounded like `nameCache`; past the bound texts are copied as before.
 */
const sharedTexts = new Map<string, string>();
const SHARED_TEXTS_LIMIT = 1_000;

export function sharedText(text: string): string {
  const cached = sharedTexts.get(text);
  if (cached !== undefined) return cached;
  const copy = detach(text);
  if (sharedTexts.size < SHARED_TEXTS_LIMIT) sharedTexts.set(copy, copy);
  return copy;
}

export function isSharedField(name: FieldPath): boolean {
  return name === 'AVAILABILITY_IN_STOCK' || name === 'AVAILABILITY_OUT_OF_STOCK' || name === 'CURRENCY';
}

/** Names repeat in every item: caching the normalised name saves a `toUpperCase` per element (measured hot). */
const nameCache = new Map<string, string>();
const NAME_CACHE_LIMIT = 10_000;

export function localUpperName(name: string): string {
  const cached = nameCache.get(name);
  if (cached !== undefined) return cached;
  const colon = name.indexOf(':');
  const local = (colon < 0 ? name : name.slice(colon + 1)).toUpperCase();
  // Bounded, so a hostile document with millions of distinct names cannot grow it.
  if (nameCache.size < NAME_CACHE_LIMIT) nameCache.set(name, local);
  return local;
}
