import type { PriceListRow } from '../../core/catalog/source.js';
import { createItemReader } from './price-list-items.js';
import type { PriceListReading } from './price-list-reading.js';
import { createSaxesReading } from './price-list-saxes.js';
import { createXmlByteScanner } from './xml-byte-scanner.js';
import { createEncodingSniffer } from './xml-encoding.js';

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
  let general: PriceListReading | undefined;

  function handOver(chunks: readonly Uint8Array[]): void {
    general = createSaxesReading(onRow);
    for (const chunk of chunks) general.write(chunk);
  }

  function scan(bytes: Uint8Array): void {
    if (!scanner.write(bytes)) handOver(scanner.prologBytes());
  }

  const sniffer = createEncodingSniffer((encoding, head) => {
    if (encoding === 'utf-8') scan(head);
    else handOver([head]);
  });

  return {
    write(chunk) {
      // Text after bytes (no caller mixes them) is read as the UTF-8 text it is.
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      if (general !== undefined) general.write(bytes);
      else if (sniffer.decided) scan(bytes);
      else sniffer.write(bytes);
    },
    end() {
      sniffer.flush();
      if (general === undefined && !scanner.end()) handOver(scanner.prologBytes());
      return general === undefined ? items.summary('utf-8') : general.end();
    },
    get inCallback() {
      return general === undefined ? items.inCallback : general.inCallback;
    },
  };
}
