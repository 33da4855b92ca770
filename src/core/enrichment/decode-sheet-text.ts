import { isUtf8 } from 'node:buffer';

/**
 * The text encodings a CSV from Excel or Google Sheets comes in: UTF-8 (with or without BOM: Google Sheets,
 * Excel's "CSV UTF-8"), UTF-16LE with BOM (Excel's "Unicode text"), and windows-1250 (Czech Excel's plain
 * "CSV (oddělený středníkem)", which has no BOM and is told apart by not being valid UTF-8).
 */
export type SheetEncoding = 'utf-8' | 'utf-16le' | 'windows-1250';

export type DecodedSheetText =
  | { readonly ok: true; readonly encoding: SheetEncoding /** The text as UTF-8, without BOM. */; readonly utf8: Buffer }
  | { readonly ok: false; readonly error: string };

/**
 * The sheet's text as UTF-8 bytes: the CSV parser works on bytes, so a UTF-8 sheet is passed on without a
 * copy, and its offsets count the same bytes the line counter scans.
 */
export function decodeSheetText(bytes: Uint8Array): DecodedSheetText {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (hasPrefix(buffer, 0xef, 0xbb, 0xbf)) {
    const utf8 = buffer.subarray(3);
    // A BOM promises UTF-8; broken bytes after it still decode, as U+FFFD, rather than as another encoding.
    return { ok: true, encoding: 'utf-8', utf8: isUtf8(utf8) ? utf8 : reencode(new TextDecoder('utf-8').decode(utf8)) };
  }
  if (hasPrefix(buffer, 0xff, 0xfe)) {
    return { ok: true, encoding: 'utf-16le', utf8: reencode(new TextDecoder('utf-16le').decode(buffer.subarray(2))) };
  }
  if (hasPrefix(buffer, 0xfe, 0xff)) {
    return { ok: false, error: 'the sheet is UTF-16 big-endian text, which cannot be read: save it as CSV UTF-8' };
  }
  if (isUtf8(buffer)) return { ok: true, encoding: 'utf-8', utf8: buffer };
  return { ok: true, encoding: 'windows-1250', utf8: reencode(new TextDecoder('windows-1250').decode(buffer)) };
}

function hasPrefix(buffer: Buffer, ...prefix: readonly number[]): boolean {
  return prefix.every((byte, index) => buffer[index] === byte);
}

function reencode(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}
