import { readFile } from 'node:fs/promises';
import type { Offer, Product } from '../../../../src/core/catalog/catalog.js';
import { readEnrichmentSheet } from '../../../../src/core/enrichment/enrichment-sheet.js';
import type { EnrichmentLimits, EnrichmentSheet, EnrichmentSheetHint } from '../../../../src/core/enrichment/enrichment-types.js';

/** Builders for the enrichment tests: products, sheet bytes in each encoding, and a reader that must succeed. */

const OFFER: Offer = { unit: 'PRG', price: 129.9, stock: 7, availability: 'in_stock' };

export function product(id: string, overrides: Partial<Product> = {}): Product {
  return { id, name: `POS name ${id}`, isStockItem: true, offers: [OFFER], aggregate: { ...OFFER, unit: 'all' }, ...overrides };
}

export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** UTF-16LE with BOM, as Excel's "Unicode text" writes it. */
export function utf16le(text: string): Uint8Array {
  const body = Buffer.from(text, 'utf16le');
  return new Uint8Array(Buffer.concat([Buffer.from([0xff, 0xfe]), body]));
}

/** Windows-1250 code points of the Czech letters (the rest of the tests' text is ASCII). */
const CP1250: Readonly<Record<string, number>> = {
  á: 0xe1,
  č: 0xe8,
  ď: 0xef,
  é: 0xe9,
  ě: 0xec,
  í: 0xed,
  ň: 0xf2,
  ó: 0xf3,
  ř: 0xf8,
  š: 0x9a,
  ť: 0x9d,
  ú: 0xfa,
  ů: 0xf9,
  ý: 0xfd,
  ž: 0x9e,
  Č: 0xc8,
  Ř: 0xd8,
  Š: 0x8a,
  Ž: 0x8e,
};

/** The bytes Czech Excel's "CSV (oddělený středníkem)" writes for `text`, mapped by hand. */
export function windows1250(text: string): Uint8Array {
  return Uint8Array.from([...text], (char) => {
    const code = char.charCodeAt(0);
    if (code < 0x80) return code;
    const mapped = CP1250[char];
    if (mapped === undefined) throw new Error(`no windows-1250 byte for ${char} in the test map`);
    return mapped;
  });
}

export async function fixture(name: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(new URL(`../../../fixtures/enrichment/${name}`, import.meta.url)));
}

/** Reads a sheet that must be readable. */
export async function readSheet(
  bytes: Uint8Array | string,
  hint: EnrichmentSheetHint = {},
  limits?: Partial<EnrichmentLimits>,
): Promise<EnrichmentSheet> {
  const result = await readEnrichmentSheet(typeof bytes === 'string' ? utf8(bytes) : bytes, hint, limits);
  if (!result.ok) throw new Error(`expected a readable sheet: ${result.error}`);
  return result;
}

/** Reads a sheet that must fail as a whole; its error. */
export async function sheetError(bytes: Uint8Array | string, limits?: Partial<EnrichmentLimits>): Promise<string> {
  const result = await readEnrichmentSheet(typeof bytes === 'string' ? utf8(bytes) : bytes, {}, limits);
  if (result.ok) throw new Error('expected the sheet to fail');
  return result.error;
}

/** The problems as `code@line:column` (compact for assertions). */
export function problemKeys(sheet: Pick<EnrichmentSheet, 'problems'>): string[] {
  return sheet.problems.map((problem) => `${problem.code}@${problem.line ?? '-'}:${problem.column ?? '-'}`);
}
