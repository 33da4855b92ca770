/**
 * The identity codes (code, EAN, PLU) of a document's rows, held in typed arrays instead of strings:
 * the shared part of `price-list-rows.ts` and `stock-rows.ts` (why typed arrays: see there).
 */

/** Rows per block of columns; blocks are never grown or copied, so collecting leaves no garbage arrays. */
export const BLOCK_ROWS = 4_096;
/**
 * Characters per page of the code pool; a row's codes never straddle two pages. 128 KiB, glibc's mmap
 * threshold with `npm start`'s settings (decision 0017): a page no free space of an arena holds is mapped on
 * its own and given back when freed, instead of growing an arena that keeps what is freed.
 */
const PAGE_CHARS = 64 * 1_024;
/** Code length meaning "absent". */
const ABSENT = 0xffff;
const CODE = 0;
const EAN = 1;
const PLU = 2;
const CODE_COLUMNS = 3;

export interface CodeFields {
  code?: string;
  ean?: string;
  plu?: string;
}

export interface RowCodes {
  /** Appends the next row's codes (codes longer than 65,534 characters count as absent). */
  push(code: string | undefined, ean: string | undefined, plu: string | undefined): void;
  /** Writes the present codes of row `index` into `into`, in the order code, EAN, PLU; returns `into`. */
  readInto<T extends CodeFields>(index: number, into: T): T;
  /**
   * Points `into` at row `index`'s codes where they are held (no string made; an absent code is an empty
   * range, as an empty code); `false` when there is no such row.
   */
  unitsInto(index: number, into: RowCodeUnits): boolean;
  /** Everything held, as plain data a thread can post to another (`createRowCodes(state)` reads it there). */
  state(): RowCodesState;
}

/**
 * A row's codes as ranges of one array of UTF-16 code units, filled in place row after row: identity
 * resolution hashes and compares them where they lie instead of making three strings per row (at
 * 1,000,000 × 5, ten million rows: ~3.4 s of the sync's thread made strings only to hash them).
 */
export interface RowCodeUnits {
  units: Uint16Array;
  codeStart: number;
  codeEnd: number;
  eanStart: number;
  eanEnd: number;
  pluStart: number;
  pluEnd: number;
}

export function createRowCodeUnits(): RowCodeUnits {
  return { units: new Uint16Array(0), codeStart: 0, codeEnd: 0, eanStart: 0, eanEnd: 0, pluStart: 0, pluEnd: 0 };
}

/** The pool's contents: typed arrays and numbers only (structured-cloneable). */
export interface RowCodesState {
  readonly rows: number;
  readonly blocks: readonly CodeBlock[];
  readonly pages: readonly Uint16Array[];
  readonly pageUsed: number;
}

export interface CodeBlock {
  /** Page and offset in the pool of the row's codes (stored one after the other). */
  readonly pages: Int32Array;
  readonly offsets: Int32Array;
  /** Length of each code, `ABSENT` when absent. */
  readonly lengths: Uint16Array;
}

function usable(value: string | undefined): string | undefined {
  return value !== undefined && value.length < ABSENT ? value : undefined;
}

/** Characters per `String.fromCharCode` call (its arguments live on the stack). */
const READ_CHUNK = 8_192;

/** One flat string (a character-by-character `+=` would build a rope of one object per character). */
function readCode(chars: Uint16Array, start: number, length: number): string {
  const end = start + length;
  if (length <= READ_CHUNK) return String.fromCharCode.apply(null, chars.subarray(start, end) as unknown as number[]);
  const parts: string[] = [];
  for (let at = start; at < end; at += READ_CHUNK) {
    parts.push(String.fromCharCode.apply(null, chars.subarray(at, Math.min(end, at + READ_CHUNK)) as unknown as number[]));
  }
  return parts.join('');
}

/**
 * A pool of rows' codes: characters in pages of UTF-16 code units, per row a page, an offset and three
 * lengths (~14 bytes per row plus the characters, outside the JS heap).
 */
export function createRowCodes(from?: RowCodesState): RowCodes {
  let rows = from?.rows ?? 0;
  const blocks: CodeBlock[] = from === undefined ? [] : [...from.blocks];
  const pages: Uint16Array[] = from === undefined ? [] : [...from.pages];
  let page = pages[pages.length - 1] ?? new Uint16Array(0);
  let pageUsed = from?.pageUsed ?? 0;

  function store(value: string | undefined, at: number): number {
    if (value === undefined) return at;
    for (let i = 0; i < value.length; i += 1) page[at + i] = value.charCodeAt(i);
    return at + value.length;
  }

  return {
    push(rawCode, rawEan, rawPlu) {
      const slot = rows % BLOCK_ROWS;
      if (slot === 0) {
        blocks.push({
          pages: new Int32Array(BLOCK_ROWS),
          offsets: new Int32Array(BLOCK_ROWS),
          lengths: new Uint16Array(BLOCK_ROWS * CODE_COLUMNS),
        });
      }
      const block = blocks[blocks.length - 1] as CodeBlock;
      const code = usable(rawCode);
      const ean = usable(rawEan);
      const plu = usable(rawPlu);
      const chars = (code?.length ?? 0) + (ean?.length ?? 0) + (plu?.length ?? 0);
      if (pageUsed + chars > page.length) {
        page = new Uint16Array(Math.max(PAGE_CHARS, chars));
        pages.push(page);
        pageUsed = 0;
      }
      block.pages[slot] = pages.length - 1;
      block.offsets[slot] = pageUsed;
      const lengths = slot * CODE_COLUMNS;
      block.lengths[lengths + CODE] = code === undefined ? ABSENT : code.length;
      block.lengths[lengths + EAN] = ean === undefined ? ABSENT : ean.length;
      block.lengths[lengths + PLU] = plu === undefined ? ABSENT : plu.length;
      pageUsed = store(plu, store(ean, store(code, pageUsed)));
      rows += 1;
    },
    readInto(index, into) {
      const block = index >= 0 && index < rows ? blocks[Math.floor(index / BLOCK_ROWS)] : undefined;
      if (block === undefined) return into;
      const slot = index % BLOCK_ROWS;
      const chars = pages[block.pages[slot] ?? 0] ?? page;
      let at = block.offsets[slot] ?? 0;
      const lengths = slot * CODE_COLUMNS;
      const codeLength = block.lengths[lengths + CODE] ?? ABSENT;
      const eanLength = block.lengths[lengths + EAN] ?? ABSENT;
      const pluLength = block.lengths[lengths + PLU] ?? ABSENT;
      if (codeLength !== ABSENT) {
        into.code = readCode(chars, at, codeLength);
        at += codeLength;
      }
      if (eanLength !== ABSENT) {
        into.ean = readCode(chars, at, eanLength);
        at += eanLength;
      }
      if (pluLength !== ABSENT) into.plu = readCode(chars, at, pluLength);
      return into;
    },
    unitsInto(index, into) {
      const block = index >= 0 && index < rows ? blocks[Math.floor(index / BLOCK_ROWS)] : undefined;
      if (block === undefined) return false;
      const slot = index % BLOCK_ROWS;
      into.units = pages[block.pages[slot] ?? 0] ?? page;
      let at = block.offsets[slot] ?? 0;
      const lengths = slot * CODE_COLUMNS;
      const codeLength = block.lengths[lengths + CODE] ?? ABSENT;
      const eanLength = block.lengths[lengths + EAN] ?? ABSENT;
      const pluLength = block.lengths[lengths + PLU] ?? ABSENT;
      into.codeStart = at;
      if (codeLength !== ABSENT) at += codeLength;
      into.codeEnd = at;
      into.eanStart = at;
      if (eanLength !== ABSENT) at += eanLength;
      into.eanEnd = at;
      into.pluStart = at;
      if (pluLength !== ABSENT) at += pluLength;
      into.pluEnd = at;
      return true;
    },
    state: () => ({ rows, blocks, pages, pageUsed }),
  };
}
