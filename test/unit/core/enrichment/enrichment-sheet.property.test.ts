import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readEnrichmentSheet } from '../../../../src/core/enrichment/enrichment-sheet.js';
import { utf8 } from './enrichment-fixtures.js';

/** Characters that stress CSV and the value rules, mixed with arbitrary code points. */
const TRICKY = [';', ',', '"', '\n', '\r', '\r\n', '\t', ' ', '\u00a0', '=', '="', '|', '>', 'á', 'Ř', '\u0000', '\u0007', '🍫'];
const cellText = fc.oneof(
  fc.string({ unit: fc.constantFrom(...TRICKY), maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.oneof(fc.constantFrom(...TRICKY), fc.constantFrom('a', 'b', ' ')), minLength: 140, maxLength: 170 }),
);

/** A CSV field as a spreadsheet writes it: quoted when it must be (or always), quotes doubled. */
function field(text: string, delimiter: string, alwaysQuote: boolean): string {
  const mustQuote = alwaysQuote || text.includes(delimiter) || /["\r\n]/.test(text);
  return mustQuote ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The title a cell should give, written independently of the reader: every whitespace or control run is one space. */
function expectedTitle(text: string): string {
  let out = '';
  let pendingSpace = false;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (/\s/.test(char) || code < 0x20 || (code >= 0x7f && code <= 0x9f)) {
      pendingSpace = out !== '';
      continue;
    }
    out += pendingSpace ? ` ${char}` : char;
    pendingSpace = false;
  }
  return out;
}

/** The text of Excel's `="…"` idiom (quotes doubled inside), when the trimmed cell is one. */
function textLiteral(text: string): string | undefined {
  const match = /^="((?:[^"]|"")*)"$/s.exec(text.trim());
  return match?.[1]?.replaceAll('""', '"');
}

describe('core/enrichment: properties', () => {
  it('reads any cell written as CSV back as its collapsed text, or reports it, with either delimiter', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(cellText, { minLength: 1, maxLength: 12 }),
        fc.constantFrom(';', ','),
        fc.boolean(),
        fc.constantFrom('\n', '\r\n'),
        async (cells, delimiter, alwaysQuote, newline) => {
          const lines = [
            `id${delimiter}title`,
            ...cells.map((text, n) => `r${n}${delimiter}${field(text, delimiter, alwaysQuote)}`),
          ];

          const result = await readEnrichmentSheet(utf8(lines.join(newline) + newline), {});

          expect(result.ok).toBe(true);
          if (!result.ok) return;
          expect(result.delimiter).toBe(delimiter);
          expect(result.rows.map((row) => row.key)).toEqual(cells.map((_, n) => `r${n}`));
          for (const [n, text] of cells.entries()) {
            const row = result.rows[n];
            const reported = result.problems.some((problem) => problem.line === row?.line && problem.column === 'title');
            const literal = textLiteral(text);
            const expected = expectedTitle(literal ?? text);
            if (literal === undefined && text.trim().startsWith('=')) {
              expect([row?.values.title, reported]).toEqual([undefined, true]);
            } else if ([...expected].length > 150) {
              expect([row?.values.title, reported]).toEqual([undefined, true]);
            } else {
              expect([row?.values.title, reported]).toEqual([expected === '' ? undefined : expected, false]);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never throws on arbitrary bytes, with or without a ZIP signature', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), fc.boolean(), async (bytes, zip) => {
        const input = zip ? new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...bytes]) : bytes;

        const result = await readEnrichmentSheet(input, {});

        expect(typeof result.ok).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });
});
