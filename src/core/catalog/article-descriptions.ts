import type { Product } from './catalog.js';
import { slotOfPosition } from './catalog-chunks.js';

/** The public fields of an article, as a product carries them (`describeArticle`). */
export type ArticleDescription = Pick<Product, 'id' | 'name' | 'groupId' | 'ean' | 'plu' | 'internalIdentifier' | 'measureUnit'>;

/**
 * The merge's article fields (`describeArticle`) for every article, held as a few long strings and typed
 * arrays rather than an object and four or five strings per article: at 1,000,000 articles those were ~5
 * million objects that every full collection of the sync's thread marked again (a dozen forced ones per sync,
 * ~0.5 s each, and the concurrent marking beside them; bench/full-sync.ts with `--trace-gc`). A description
 * is made again, the same object with the same keys in the same order, when asked.
 */
export interface ArticleDescriptions {
  readonly length: number;
  /** The description at `position`, a new object at each call. */
  at(position: number): ArticleDescription;
  /** The article id at `position`, without making the description. */
  idAt(position: number): string;
}

/**
 * Articles per block at most, and characters: each text column is one string per block, so no string nears
 * V8's length limit (~2^29), whatever the texts a POS sends.
 */
const BLOCK_ARTICLES = 1 << 16;
const BLOCK_CHARS = 1 << 26;

/** One text field of every article: the texts of a block end to end, and where each ends in its block. */
interface TextColumn {
  readonly blocks: string[];
  /** The first position of each block. */
  readonly firsts: number[];
  readonly ends: Int32Array;
}

function textColumnBuilder(length: number): {
  add(position: number, text: string | undefined): void;
  finish(): TextColumn;
} {
  const blocks: string[] = [];
  const firsts: number[] = [];
  const ends = new Int32Array(length);
  let pieces: string[] = [];
  let end = 0;
  const close = (): void => {
    blocks.push(pieces.join(''));
    pieces = [];
    end = 0;
  };
  return {
    // Positions come in order, from 0.
    add(position, text) {
      const chars = text?.length ?? 0;
      const first = firsts.at(-1);
      if (first === undefined) firsts.push(position);
      else if (position - first >= BLOCK_ARTICLES || end + chars > BLOCK_CHARS) {
        close();
        firsts.push(position);
      }
      if (text !== undefined && chars > 0) {
        pieces.push(text);
        end += chars;
      }
      ends[position] = end;
    },
    finish() {
      if (firsts.length > blocks.length) close();
      return { blocks, firsts, ends };
    },
  };
}

/** The text at `position`; `''` when there is none (an id or a name may be empty, an optional text is then absent). */
function textAt(column: TextColumn, position: number): string {
  const { firsts } = column;
  const block = slotOfPosition(firsts.length, (slot) => firsts[slot] ?? 0, position);
  const end = column.ends[position] ?? 0;
  const start = position === firsts[block] ? 0 : (column.ends[position - 1] ?? 0);
  return start === end ? '' : (column.blocks[block] ?? '').slice(start, end);
}

/** `describeArticle`'s descriptions, in order, held compactly. Optional texts must be absent, never `''`. */
export function packArticleDescriptions(length: number, describe: (position: number) => ArticleDescription): ArticleDescriptions {
  const ids = textColumnBuilder(length);
  const names = textColumnBuilder(length);
  const groupIds = textColumnBuilder(length);
  const eans = textColumnBuilder(length);
  const internalIdentifiers = textColumnBuilder(length);
  const measureUnits = textColumnBuilder(length);
  // NaN: no PLU (a description never carries a PLU that is not finite).
  const plus = new Float64Array(length).fill(Number.NaN);
  for (let position = 0; position < length; position += 1) {
    const article = describe(position);
    ids.add(position, article.id);
    names.add(position, article.name);
    groupIds.add(position, article.groupId);
    eans.add(position, article.ean);
    if (article.plu !== undefined) plus[position] = article.plu;
    internalIdentifiers.add(position, article.internalIdentifier);
    measureUnits.add(position, article.measureUnit);
  }
  const columns = {
    id: ids.finish(),
    name: names.finish(),
    groupId: groupIds.finish(),
    ean: eans.finish(),
    internalIdentifier: internalIdentifiers.finish(),
    measureUnit: measureUnits.finish(),
  };
  return {
    length,
    idAt: (position) => textAt(columns.id, position),
    at(position) {
      if (!Number.isInteger(position) || position < 0 || position >= length) {
        throw new RangeError(`no article at position ${position} of ${length}`);
      }
      const groupId = textAt(columns.groupId, position);
      const ean = textAt(columns.ean, position);
      const plu = plus[position] ?? Number.NaN;
      const internalIdentifier = textAt(columns.internalIdentifier, position);
      const measureUnit = textAt(columns.measureUnit, position);
      // The keys in `describeArticle`'s order: the products' JSON, and so the catalog's fingerprint, stay the same.
      return {
        id: textAt(columns.id, position),
        name: textAt(columns.name, position),
        ...(groupId === '' ? {} : { groupId }),
        ...(ean === '' ? {} : { ean }),
        ...(Number.isNaN(plu) ? {} : { plu }),
        ...(internalIdentifier === '' ? {} : { internalIdentifier }),
        ...(measureUnit === '' ? {} : { measureUnit }),
      };
    },
  };
}
