import { TextDecoder } from 'node:util';

/** How many leading bytes may be held back to read the XML declaration's `encoding` before decoding. */
export const ENCODING_SNIFF_BYTES = 1024;

/** The encoding label from a BOM or the XML declaration; UTF-8 when neither says. */
export function sniffEncoding(head: Uint8Array): string {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  const ascii = new TextDecoder('latin1').decode(head.subarray(0, ENCODING_SNIFF_BYTES));
  const declared = /^\s*<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(ascii);
  return declared?.[1] ?? 'utf-8';
}

export function concatBytes(parts: readonly Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
