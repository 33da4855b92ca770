/**
 * What a ZIP archive (an .xlsx workbook) says it unpacks to, read from its central directory before
 * anything is inflated: a workbook of a few MiB that declares gigabytes is refused before exceljs builds
 * it in memory. Declared sizes can lie, so this stops accidents and crude bombs; the worker the sheet is
 * read in bounds the rest (decision 0011).
 */

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
/** The end record is 22 bytes plus a comment of up to 65,535. */
const MAX_END_RECORD_SEARCH = 22 + 65_535;
/** A ZIP64 archive marks its 32-bit sizes with all ones. */
const ZIP64_MARK = 0xffffffff;

/** The summed uncompressed sizes of the archive's entries, or `undefined` when the directory cannot be read (or is ZIP64). */
export function zipDeclaredSize(bytes: Uint8Array): number | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stop = Math.max(0, bytes.length - MAX_END_RECORD_SEARCH);
  let end = -1;
  for (let at = bytes.length - 22; at >= stop; at -= 1) {
    if (view.getUint32(at, true) === END_OF_CENTRAL_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) return undefined;
  const entries = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  let total = 0;
  for (let entry = 0; entry < entries; entry += 1) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== CENTRAL_FILE_HEADER) return undefined;
    const size = view.getUint32(at + 24, true);
    if (size === ZIP64_MARK) return undefined;
    total += size;
    at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return total;
}
