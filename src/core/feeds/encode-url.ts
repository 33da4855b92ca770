/**
 * An absolute http(s) URL made ASCII-only as RFC 3986 wants (Google `link`/`image_link`; Zboží rejects
 * diacritics and spaces in `URL`/`IMGURL`): characters outside the unreserved and reserved sets are
 * percent-encoded as UTF-8, existing `%XX` escapes are kept (no double encoding), a lone `%` becomes
 * `%25`, unpaired surrogates are dropped, and an internationalised host name becomes punycode.
 * Anything that is not an absolute http(s) URL gives `undefined`.
 *
 * @example encodeUrl('https://shop.cz/káva 1kg.jpg') // 'https://shop.cz/k%C3%A1va%201kg.jpg'
 */
const ALREADY_SAFE = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]*$/;
const ALLOWED_ASCII = /[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]/;
const HEX = /[0-9A-Fa-f]/;
const ABSOLUTE = /^(https?:\/\/)([^/?#]*)([\s\S]*)$/i;

export function encodeUrl(value: string): string | undefined {
  const text = value.trim();
  const match = ABSOLUTE.exec(text);
  if (match === null) return undefined;
  const [, scheme = '', authority = '', rest = ''] = match;
  const host = asciiAuthority(authority);
  if (host === undefined || host === '') return undefined;
  const tail = ALREADY_SAFE.test(rest) ? rest : encodeRest(rest);
  return `${scheme.toLowerCase()}${host}${tail}`;
}

function asciiAuthority(authority: string): string | undefined {
  if (ALREADY_SAFE.test(authority)) return authority;
  // The WHATWG URL parser knows IDNA; it is pure computation, so the core may use it.
  try {
    const parsed = new URL(`http://${authority}`);
    const userInfo = authority.includes('@') ? `${encodeRest(authority.slice(0, authority.lastIndexOf('@')))}@` : '';
    return `${userInfo}${parsed.host}`;
  } catch {
    return undefined;
  }
}

function encodeRest(rest: string): string {
  let out = '';
  for (let i = 0; i < rest.length; i++) {
    const char = rest.charAt(i);
    const code = rest.charCodeAt(i);
    if (code < 0x80) {
      if (ALLOWED_ASCII.test(char)) out += char;
      else if (char === '%' && HEX.test(rest.charAt(i + 1)) && HEX.test(rest.charAt(i + 2))) out += '%';
      else out += `%${code.toString(16).toUpperCase().padStart(2, '0')}`;
      continue;
    }
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = rest.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += encodeURIComponent(rest.slice(i, i + 2));
        i++;
      }
      continue;
    }
    if (code >= 0xdc00 && code <= 0xdfff) continue;
    out += encodeURIComponent(char);
  }
  return out;
}
