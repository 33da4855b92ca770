import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';

/**
 * A stock export's text, decoded a piece at a time. A 1,000,000-article export is ~65 MB of bytes and, with
 * Czech names, ~130 MB as one JavaScript string (two bytes a character): decoded whole, the string stood
 * beside the bytes and the rows for as long as the parse ran, with up to three exports in flight at once
 * (bench/full-sync.ts). In pieces of ~1 MiB the string is never more than a piece.
 *
 * The bytes are UTF-8 when they are valid UTF-8 (checked whole, without decoding), else windows-1250 (what
 * Czech Windows tools write); a UTF-8 BOM is dropped. Each piece but the last ends right after a line feed
 * byte, which is never part of a longer character in either encoding, so no character is cut in two and a
 * CR LF pair is never split.
 */

export interface StockTextPiece {
  readonly text: string;
  /** Whether the document ends with this piece. */
  readonly final: boolean;
}

export interface StockText {
  readonly encoding: 'utf-8' | 'windows-1250' | undefined;
  /** The next piece: about `bytes` of the document (more when a line is longer) after the last piece. */
  next(bytes: number): StockTextPiece;
}

/** Bytes of a piece, unless a line is longer. */
export const STOCK_TEXT_PIECE_BYTES = 1024 * 1024;

const LF = 0x0a;

export function openStockText(input: string | Uint8Array): StockText {
  if (typeof input === 'string') {
    let given: string | undefined = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
    return {
      encoding: undefined,
      next() {
        const text = given ?? '';
        given = undefined;
        return { text, final: true };
      },
    };
  }
  const encoding = isUtf8(input) ? 'utf-8' : 'windows-1250';
  // Streaming: a BOM is dropped at the start of the document only, and no piece ends inside a character.
  const decoder = new TextDecoder(encoding);
  let at = 0;
  return {
    encoding,
    next(bytes) {
      if (at >= input.length) return { text: decoder.decode(), final: true };
      const lineFeed = input.indexOf(LF, Math.min(input.length, at + Math.max(1, bytes)) - 1);
      const end = lineFeed < 0 || lineFeed + 1 >= input.length ? input.length : lineFeed + 1;
      const final = end >= input.length;
      const text = decoder.decode(input.subarray(at, end), { stream: !final });
      at = end;
      return { text, final };
    },
  };
}
