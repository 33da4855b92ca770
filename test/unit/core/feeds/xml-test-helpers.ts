import { XMLParser } from 'fast-xml-parser';
import { SaxesParser } from 'saxes';

/**
 * Errors of a strict, namespace-aware XML 1.0 parse (saxes). fast-xml-parser's validator checks
 * structure but lets forbidden characters (U+0001, lone surrogates) through, so tests use both.
 */
export function strictXmlErrors(xml: string): string[] {
  const errors: string[] = [];
  const parser = new SaxesParser({ xmlns: true });
  parser.on('error', (error) => {
    errors.push(error.message);
  });
  try {
    parser.write(xml).close();
  } catch (error) {
    errors.push(String(error));
  }
  return errors;
}

/** fast-xml-parser set to give text back exactly: no trimming, no number parsing, entities decoded. */
export const exactXmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  htmlEntities: true,
  isArray: (name) => ['item', 'SHOPITEM', 'depot', 'SHOP_DEPOTS'].includes(name),
});
