import { TextDecoder } from 'node:util';

/** How many leading bytes may be held back to read the XML declaration's `encoding` before decoding. */
const ENCODING_SNIFF_BYTES = 1024;

/** The encoding label from a BOM or the XML declaration; UTF-8 when neither says. */
function sniffEncoding(head: Uint8Array): string {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  const ascii = new TextDecoder('latin1').decode(head.subarray(0, ENCODING_SNIFF_BYTES));
  const declared = /^\s*<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(ascii);
  return declared?.[1] ?? 'utf-8';
}

function concatBytes(parts: readonly Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** The decoder's name for an encoding label; UTF-8 for one it does not know, as every Shoptet feed is (S1, S5). */
export function decoderEncoding(label: string): string {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return 'utf-8';
  }
}

/**
 * A document's first bytes held back only until its encoding can be read: the XML declaration (or the
 * first tag) complete, or `ENCODING_SNIFF_BYTES` held. Then `decided` gets the encoding (the decoder's name,
 * `decoderEncoding`) and every byte held so far, once; later bytes are the caller's to route.
 */
export interface EncodingSniffer {
  /** Whether the encoding is known (after which `write` must not be called). */
  readonly decided: boolean;
  write(bytes: Uint8Array): void;
  /** The end of the document: decides with what is held, if anything is. */
  flush(): void;
}

export function createEncodingSniffer(decided: (encoding: string, head: Uint8Array) => void): EncodingSniffer {
  let held: Uint8Array[] = [];
  let heldLength = 0;
  let done = false;

  function decide(): void {
    const head = concatBytes(held, heldLength);
    held = [];
    heldLength = 0;
    done = true;
    decided(decoderEncoding(sniffEncoding(head)), head);
  }

  return {
    get decided() {
      return done;
    },
    write(bytes) {
      held.push(bytes);
      heldLength += bytes.length;
      if (heldLength >= ENCODING_SNIFF_BYTES || bytes.includes(0x3e)) decide();
    },
    flush() {
      if (!done && heldLength > 0) decide();
    },
  };
}
