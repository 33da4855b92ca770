/**
 * Characters no feed text may carry: what XML 1.0 forbids (C0 controls other than TAB, LF and CR;
 * U+FFFE, U+FFFF; unpaired surrogates) plus DEL and the C1 controls U+0080–U+009F, which XML only
 * discourages but which are never meaningful in catalog text (they come from mis-decoded Windows-1250
 * text) and which channels reject as "encoding problems" (docs/channels.md, text).
 *
 * The lookarounds see the original string, so removing one character never creates a new lone surrogate.
 */
const UNWANTED =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Cheap pre-test: any surrogate counts, so emoji take the (correct) slow path. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const MAYBE_UNWANTED = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uD800-\uDFFF\uFFFE\uFFFF]/;

/**
 * `text` without the characters above; everything else (diacritics, emoji, TAB/LF/CR, entity-like text
 * such as `&eacute;`) is kept as it is. Every XML, CSV and TSV renderer passes its text through this.
 *
 * @example cleanText('Hrnek\u0001 😀') // 'Hrnek 😀'
 */
export function cleanText(text: string): string {
  return MAYBE_UNWANTED.test(text) ? text.replace(UNWANTED, '') : text;
}
