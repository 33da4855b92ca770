/**
 * Merchant API v1 resource names (docs/decisions/0013-channel-push.md, "Resource names"): a product is
 * `contentLanguage~feedLabel~offerId` (e.g. `cs~CZ~12345`; the `online~` prefix was v1beta only), sent
 * always as **unpadded base64url** (RFC 4648 §5). Google requires that form when an offer id contains `/`,
 * `%` or `~`, and recommends it for all (`ProductInput.name`), so one form serves every id.
 */

/** The Google feed's `g:id` limit (templates/google.json `maxLength: 50`, in code points); longer ids are never pushed. */
export const GOOGLE_OFFER_ID_MAX = 50;

/** What identifies one product input in an account. */
export interface GoogleProductKey {
  /** ISO 639-1, e.g. `cs` (`GOOGLE_CONTENT_LANGUAGE`). */
  readonly contentLanguage: string;
  /** e.g. `CZ` (`GOOGLE_FEED_LABEL`). */
  readonly feedLabel: string;
  /** The feed's `g:id`, the product's `id`. */
  readonly offerId: string;
}

/** Thrown for a key or id the Merchant API would not accept; the caller counts the item `skipped`. */
export class GoogleNameError extends RangeError {
  override readonly name = 'GoogleNameError';
}

// The configuration's rules for the two fixed parts (decision 0013, "Configuration"); neither can hold `~`,
// which is what lets `decodeProductId` split an offer id that does.
const CONTENT_LANGUAGE = /^[a-z]{2}$/;
const FEED_LABEL = /^[A-Z0-9_-]{1,20}$/;
const ACCOUNT_ID = /^[0-9]{1,20}$/;
const LONE_SURROGATE = /\p{Cs}/u;

function checkKey({ contentLanguage, feedLabel, offerId }: GoogleProductKey): void {
  if (!CONTENT_LANGUAGE.test(contentLanguage))
    throw new GoogleNameError(`contentLanguage must be ISO 639-1 (e.g. cs), got "${contentLanguage}"`);
  if (!FEED_LABEL.test(feedLabel)) throw new GoogleNameError(`feedLabel must match ${FEED_LABEL.source}, got "${feedLabel}"`);
  if (offerId.length === 0) throw new GoogleNameError('offerId must not be empty');
  // A lone surrogate would be sent as U+FFFD, i.e. as another product's id.
  if (LONE_SURROGATE.test(offerId)) throw new GoogleNameError(`offerId is not well-formed Unicode: "${offerId}"`);
  const codePoints = [...offerId].length;
  if (codePoints > GOOGLE_OFFER_ID_MAX) {
    throw new GoogleNameError(`offerId has ${codePoints} characters, more than the ${GOOGLE_OFFER_ID_MAX} Google takes`);
  }
}

function checkNumericId(label: string, id: string): void {
  if (!ACCOUNT_ID.test(id)) throw new GoogleNameError(`${label} must be digits only, got "${id}"`);
}

/**
 * The `{productinput}` / `{product}` segment: unpadded base64url of the UTF-8 `contentLanguage~feedLabel~offerId`.
 *
 * @example productId({ contentLanguage: 'en', feedLabel: 'US', offerId: 'sku/123' }) // 'ZW5-VVN-c2t1LzEyMw'
 * @throws GoogleNameError for an invalid language, feed label or offer id.
 */
export function productId(key: GoogleProductKey): string {
  checkKey(key);
  return Buffer.from(`${key.contentLanguage}~${key.feedLabel}~${key.offerId}`, 'utf8').toString('base64url');
}

/** `accounts/{account}/productInputs/{id}`: the name `productInputs.patch` and `.delete` address. */
export function productInputName(accountId: string, key: GoogleProductKey): string {
  checkNumericId('accountId', accountId);
  return `accounts/${accountId}/productInputs/${productId(key)}`;
}

/** `accounts/{account}/products/{id}`: the parent of `localInventories.insert`. */
export function productName(accountId: string, key: GoogleProductKey): string {
  checkNumericId('accountId', accountId);
  return `accounts/${accountId}/products/${productId(key)}`;
}

/** `accounts/{account}/dataSources/{dataSource}`: the `dataSource` query parameter of product input calls. */
export function dataSourceName(accountId: string, dataSourceId: string): string {
  checkNumericId('accountId', accountId);
  checkNumericId('dataSourceId', dataSourceId);
  return `accounts/${accountId}/dataSources/${dataSourceId}`;
}

/**
 * The key an encoded segment stands for, `undefined` when it is not the canonical unpadded base64url of a
 * valid key (padding, `+`/`/`, or bytes that are not UTF-8 count as invalid). For the test servers, which
 * must refuse what Google would, and for reading names back from responses.
 */
export function decodeProductId(segment: string): GoogleProductKey | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(segment)) return undefined;
  const bytes = Buffer.from(segment, 'base64url');
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  // Re-encoding catches both invalid UTF-8 (turned into U+FFFD) and non-canonical trailing bits.
  if (Buffer.from(text, 'utf8').toString('base64url') !== segment) return undefined;
  const first = text.indexOf('~');
  const second = text.indexOf('~', first + 1);
  if (first < 0 || second < 0) return undefined;
  const key = {
    contentLanguage: text.slice(0, first),
    feedLabel: text.slice(first + 1, second),
    offerId: text.slice(second + 1),
  };
  try {
    checkKey(key);
  } catch {
    return undefined;
  }
  return key;
}
