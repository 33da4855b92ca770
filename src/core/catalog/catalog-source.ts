/**
 * Which POS a catalog comes from (docs/decisions/0007-source-identity-and-start-sync.md). The store
 * records it with every version, webhook event and sync report, and serves, applies or lists only what
 * came from the configured source: a catalog built from the sandbox must never be served as a shop's.
 */
export interface CatalogSource {
  /** Stable identity compared at start; it holds no secret (an API key appears only as a one-way hash). */
  readonly id: string;
  /** The same for people: logs, `/readyz`, the status page; without the key's hash, which stays in the store. */
  readonly label: string;
}

/** What makes the built-in sandbox's data: its seed and size (its URL changes with every run, so it is left out). */
export interface SandboxIdentity {
  readonly seed: number;
  readonly units: number;
  readonly articles: number;
}

export function sandboxSource(sandbox: SandboxIdentity): CatalogSource {
  const { seed, units, articles } = sandbox;
  return {
    id: `sandbox:seed=${seed};units=${units};articles=${articles}`,
    label: `the built-in sandbox (seed ${seed}, ${units} units, ${articles} articles)`,
  };
}

/**
 * A POS: its normalized base URL and what tells its accounts apart. The POS interface has no call that
 * names the account, and one POS host may serve many shops, each with its own key: so the account is a
 * short one-way hash of the API key (`keyHash`, made by the caller), never the key.
 */
export function posSource(baseUrl: string, keyHash: string): CatalogSource {
  const url = normalizePosBaseUrl(baseUrl);
  return { id: `pos:${url};key=${keyHash}`, label: `the POS at ${url}` };
}

/**
 * A source as people see it. Labels stored before 2026-11-30 carried the key's hash, which a short key
 * could be guessed from offline: it is left out wherever such a label is shown.
 */
export function sourceLabelOf(source: CatalogSource): string {
  return source.label.replace(/ \(API key #[0-9a-f]+\)$/, '');
}

/**
 * Whether two sources are the same POS host read with different keys: a new key of the same account, or
 * another account there. Only the POS's own data (`sameUnits`) tells which.
 */
export function sameHostOtherKey(a: CatalogSource, b: CatalogSource): boolean {
  const hostOf = (source: CatalogSource) => /^pos:(.+);key=[^;]*$/.exec(source.id)?.[1];
  const host = hostOf(a);
  return host !== undefined && host === hostOf(b) && a.id !== b.id;
}

/**
 * A POS base URL as an identity: scheme and host lower-cased, the scheme's default port, user name,
 * password, query, fragment and trailing slashes dropped (`HTTPS://Pos.Example:443/api/` and
 * `https://pos.example/api` are one source).
 *
 * @throws TypeError when `baseUrl` is not an absolute URL (the configuration validates it earlier).
 */
export function normalizePosBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

interface UnitKey {
  readonly localId: string;
  readonly code: string;
}

/**
 * Whether a stored catalog's units are exactly the POS's (same `localId` and code each, in any order): how a
 * catalog stored before sources were recorded, or read with the account's previous key, is recognised as
 * this POS account's. Unit ids are the POS's own (the sandbox derives them from its seed), so another
 * account or the sandbox does not match.
 */
export function sameUnits(stored: readonly UnitKey[], pos: readonly UnitKey[]): boolean {
  if (stored.length === 0 || stored.length !== pos.length) return false;
  const keyOf = (unit: UnitKey) => `${unit.localId}\u0000${unit.code}`;
  const expected = new Set(stored.map(keyOf));
  const found = new Set(pos.map(keyOf));
  return expected.size === stored.length && found.size === pos.length && [...found].every((key) => expected.has(key));
}
