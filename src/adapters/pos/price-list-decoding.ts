import { TextDecoder } from 'node:util';
import { concatBytes, ENCODING_SNIFF_BYTES, sniffEncoding } from './xml-encoding.js';

/**
 * The price-list document's chunks turned into text for saxes: bytes are held back only until the XML
 * declaration (or the first tag) names their encoding, then decoded as they stream; a BOM is dropped.
 */
export interface XmlTextFeed {
  writeBytes(bytes: Uint8Array): void;
  /** Text needs no decoding; bytes held back so far are decoded first. */
  writeText(text: string): void;
  /** The end of the document: whatever the decoder still holds. */
  flush(): void;
  /** The encoding of byte input, once decided. */
  encoding(): string | undefined;
}

export function createXmlTextFeed(write: (text: string) => void): XmlTextFeed {
  let decoder: TextDecoder | undefined;
  let encoding: string | undefined;
  let pendingBytes: Uint8Array[] = [];
  let pendingLength = 0;
  let sawText = false;

  function feedText(text: string): void {
    if (text === '') return;
    // A BOM is an encoding signature, not content; saxes would otherwise see it as text before the root.
    const content = !sawText && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    sawText = true;
    if (content !== '') write(content);
  }

  function decideEncoding(): void {
    const head = concatBytes(pendingBytes, pendingLength);
    pendingBytes = [];
    pendingLength = 0;
    const label = sniffEncoding(head);
    try {
      decoder = new TextDecoder(label);
    } catch {
      // An encoding TextDecoder does not know: read as UTF-8, which every Shoptet feed is (S1, S5).
      decoder = new TextDecoder('utf-8');
    }
    encoding = decoder.encoding;
    feedText(decoder.decode(head, { stream: true }));
  }

  function flush(): void {
    if (decoder === undefined && pendingLength > 0) decideEncoding();
    if (decoder !== undefined) feedText(decoder.decode());
  }

  return {
    writeBytes(bytes) {
      if (decoder !== undefined) {
        feedText(decoder.decode(bytes, { stream: true }));
        return;
      }
      pendingBytes.push(bytes);
      pendingLength += bytes.length;
      // Hold bytes back only until the XML declaration (or the first tag) is complete.
      if (pendingLength >= ENCODING_SNIFF_BYTES || bytes.includes(0x3e)) decideEncoding();
    },
    writeText(text) {
      flush();
      decoder = undefined;
      feedText(text);
    },
    flush,
    encoding: () => encoding,
  };
}
