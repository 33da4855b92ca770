import { TextDecoder } from 'node:util';
import { createEncodingSniffer } from './xml-encoding.js';

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
  let sawText = false;

  function feedText(text: string): void {
    if (text === '') return;
    // A BOM is an encoding signature, not content; saxes would otherwise see it as text before the root.
    const content = !sawText && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    sawText = true;
    if (content !== '') write(content);
  }

  function startDecoding(decided: string, head: Uint8Array): void {
    decoder = new TextDecoder(decided);
    encoding = decided;
    feedText(decoder.decode(head, { stream: true }));
  }

  let sniffer = createEncodingSniffer(startDecoding);

  function flush(): void {
    if (decoder === undefined) sniffer.flush();
    if (decoder !== undefined) feedText(decoder.decode());
  }

  return {
    writeBytes(bytes) {
      if (decoder !== undefined) {
        feedText(decoder.decode(bytes, { stream: true }));
        return;
      }
      sniffer.write(bytes);
    },
    writeText(text) {
      flush();
      // Bytes after text are sniffed anew.
      decoder = undefined;
      sniffer = createEncodingSniffer(startDecoding);
      feedText(text);
    },
    flush,
    encoding: () => encoding,
  };
}
