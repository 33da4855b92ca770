import { TextDecoder } from 'node:util';
import type { PriceListRow } from '../../core/catalog/source.js';
import { createItemReader } from './price-list-items.js';
import type { PriceListReading } from './price-list-reading.js';
import { createSaxesReading } from './price-list-saxes.js';
import { createXmlByteScanner } from './xml-byte-scanner.js';
import { concatBytes, ENCODING_SNIFF_BYTES, sniffEncoding } from './xml-encoding.js';

/**
 * The price list read from bytes: UTF-8 documents by the byte scanner, any other encoding (named by a BOM
 * or the XML declaration) and documents whose prolog the scanner hands over by saxes, given every byte
 * (decision 0021). Bytes are held back only until the encoding is known, as the saxes path holds them.
 */
export function createByteReading(onRow: (row: PriceListRow) => void): PriceListReading {
  const items = createItemReader(onRow, { flatTexts: true });
  const scanner = createXmlByteScanner({
    openTag: items.openTag,
    closeTag: items.closeTag,
    wantsText: items.wantsText,
    text: items.text,
    forbidden: items.forbidden,
  });
  let head: Uint8Array[] | undefined = [];
  let headLength = 0;
  let general: PriceListReading | undefined;

  function handOver(chunks: readonly Uint8Array[]): void {
    general = createSaxesReading(onRow);
    for (const chunk of chunks) general.write(chunk);
  }

  function scan(bytes: Uint8Array): void {
    if (!scanner.write(bytes)) handOver(scanner.prologBytes());
  }

  function decideEncoding(): void {
    const bytes = concatBytes(head ?? [], headLength);
    head = undefined;
    if (isUtf8(sniffEncoding(bytes))) scan(bytes);
    else handOver([bytes]);
  }

  return {
    write(chunk) {
      // Text after bytes (no caller mixes them) is read as the UTF-8 text it is.
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      if (general !== undefined) {
        general.write(bytes);
      } else if (head === undefined) {
        scan(bytes);
      } else {
        head.push(bytes);
        headLength += bytes.length;
        // Held back only until the XML declaration (or the first tag) is complete.
        if (headLength >= ENCODING_SNIFF_BYTES || bytes.includes(0x3e)) decideEncoding();
      }
    },
    end() {
      if (head !== undefined) decideEncoding();
      if (general === undefined && !scanner.end()) handOver(scanner.prologBytes());
      return general === undefined ? items.summary('utf-8') : general.end();
    },
    get inCallback() {
      return general === undefined ? items.inCallback : general.inCallback;
    },
  };
}

/** Whether a label names UTF-8 (or an encoding the decoder does not know, which is read as UTF-8 too). */
function isUtf8(label: string): boolean {
  try {
    return new TextDecoder(label).encoding === 'utf-8';
  } catch {
    return true;
  }
}
