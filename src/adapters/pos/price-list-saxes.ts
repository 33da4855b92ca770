import { SaxesParser } from 'saxes';
import type { PriceListRow } from '../../core/catalog/source.js';
import { PriceListParseError } from './parse-errors.js';
import { createXmlTextFeed } from './price-list-decoding.js';
import { createItemReader } from './price-list-items.js';
import type { PriceListReading } from './price-list-reading.js';
import { forbiddenCharacterOf } from './xml-forbidden-characters.js';

/**
 * The price-list parser over saxes: the general path, for text input, encodings other than UTF-8 and
 * documents whose prolog the byte scanner hands over (`price-list-xml.ts` routes; decision 0021). It
 * decodes the whole document and lets saxes check it.
 */

/** saxes wired to the item reader: throws `PriceListParseError` on a broken document; `price-list-xml.ts` guards it. */
export function createSaxesReading(onRow: (row: PriceListRow) => void): PriceListReading {
  const sax = new SaxesParser({ xmlns: false, position: true });
  const items = createItemReader(onRow, { flatTexts: false });
  const feed = createXmlTextFeed((text) => sax.write(text));

  sax.on('opentag', (tag) => items.openTag(tag.name));
  sax.on('closetag', items.closeTag);
  sax.on('text', items.text);
  sax.on('cdata', items.text);
  sax.on('error', (error) => {
    const forbidden = forbiddenCharacterOf(sax, error);
    if (forbidden !== undefined) {
      items.forbidden(forbidden);
      return;
    }
    // Throwing here stops saxes at the first problem (its default would be to report and carry on).
    // saxes prefixes its messages with "line:column: "; the typed error carries the position separately.
    // Its `column` is 0-based for the next character, i.e. the 1-based column of the offending one.
    const problem = error.message.replace(/^\d+:\d+: /, '').replace(/\.$/, '');
    throw new PriceListParseError(`price-list XML is not well-formed: ${problem}`, {
      line: sax.line,
      column: Math.max(1, sax.column),
    });
  });

  return {
    write(chunk) {
      if (typeof chunk === 'string') feed.writeText(chunk);
      else feed.writeBytes(chunk);
    },
    end() {
      feed.flush();
      sax.close();
      return items.summary(feed.encoding());
    },
    get inCallback() {
      return items.inCallback;
    },
  };
}
