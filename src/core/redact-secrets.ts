/**
 * Replacing known secrets (the POS API key) inside foreign text: POS messages, network errors, stacks.
 * A secret is replaced only as a whole value, never as a part of a word, so a one-letter key "k" leaves
 * "network" alone. A whole-value occurrence is replaced
 * - where it stands as the value of a secret field: after `x-api-key:`, `apiKey=`, `token=`,
 *   `Authorization: Bearer`, "api key" and the like (header echoes, URLs, JSON), whatever the secret is;
 * - anywhere else only when the secret cannot be an ordinary word or number (8 characters or more, not all
 *   letters of one case, not all digits): a key that is a common word ("network") would otherwise turn
 *   every sentence that uses the word into nonsense, and there it is no leak: the word was there anyway.
 */

export const REDACTED = '[redacted]';

/** Characters that continue a value: an occurrence next to one of them is a part of something longer. */
const VALUE_CHAR = /[\p{L}\p{N}_-]/u;

/** A secret field's name and separator right before a value (checked on the text just before it). */
const FIELD_BEFORE =
  /(?:^|[^\p{L}\p{N}])(?:x-api-key|api[-_ ]?key|apikey|key|access[-_ ]?token|token|password|secret|authorization)["']?\s*[:=]?\s*["']?(?:(?:bearer|basic)\s+)?$/iu;

/** How much text before an occurrence can hold its field's name. */
const FIELD_LOOKBEHIND = 40;

/** Whether a secret could be mistaken for a word or a number of ordinary text. */
function isWordLike(secret: string): boolean {
  return secret.length < 8 || /^(?:\p{Ll}+|\p{Lu}\p{Ll}*|\p{Lu}+|\p{N}+)$/u.test(secret);
}

function standsAlone(text: string, start: number, end: number): boolean {
  return !VALUE_CHAR.test(text.charAt(start - 1)) && !VALUE_CHAR.test(text.charAt(end));
}

function inSecretField(text: string, start: number): boolean {
  return FIELD_BEFORE.test(text.slice(Math.max(0, start - FIELD_LOOKBEHIND), start));
}

function redactOne(text: string, secret: string): string {
  const anywhere = !isWordLike(secret);
  let result = '';
  let copied = 0;
  // Every occurrence is looked at once; the loop ends at the text's end.
  for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + secret.length)) {
    const end = at + secret.length;
    if (!standsAlone(text, at, end) || !(anywhere || inSecretField(text, at))) continue;
    result += `${text.slice(copied, at)}${REDACTED}`;
    copied = end;
  }
  return copied === 0 ? text : result + text.slice(copied);
}

/**
 * A function that redacts the given secrets in a text (empty secrets are ignored). Longer secrets go first,
 * so a secret that contains another is replaced whole.
 */
export function createRedactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  const known = [...new Set(secrets.filter((secret): secret is string => secret !== undefined && secret !== ''))].sort(
    (a, b) => b.length - a.length,
  );
  if (known.length === 0) return (text) => text;
  return (text) => known.reduce((redacted, secret) => redactOne(redacted, secret), text);
}
