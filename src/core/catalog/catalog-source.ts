/**
 * Which POS a catalog comes from (docs/decisions/0007-source-identity-and-start-sync.md). The store
 * records it with every version, webhook event and sync report, and serves, applies or lists only what
 * came from the configured source: a catalog built from the sandbox must never be served as a shop's.
 */
export interface CatalogSource {
  /** Stable identity compared at start; it holds no secret (an API key appears only as a one-way hash). */
  readonly id: string;
  /** The same for people: logs, `/readyz`, the status page. */
  readonly label: string;
}

/** What makes the built-in sandbox's data: its seed and size (its URL changes with every run, so it is left out). */
export interface SandboxIdentity {
  readonly seed: number;
  readonly units: number;
  readonly articles: number;
}

/**
 * The account at a POS: the id the operator names (`POS_ACCOUNT_ID`), else a short one-way hash of the API
 * key (the POS interface has no call that names the account).
 */
export type PosAccount = { readonly accountId: string } | { readonly keyHash: string };

export function sandboxSource(sandbox: SandboxIdentity): CatalogSource {
  const { seed, units, articles } = sandbox;
  return {
    id: `sandbox:seed=${seed};units=${units};articles=${articles}`,
    label: `the built-in sandbox (seed ${seed}, ${units} units, ${articles} articles)`,
  };
}

export function posSource(baseUrl: string, account: PosAccount): CatalogSource {
  const url = normalizePosBaseUrl(baseUrl);
  if ('accountId' in account) {
    return { id: `pos:${url};account=${account.accountId}`, label: `the POS at ${url} (account ${account.accountId})` };
  }
  return { id: `pos:${url};key=${account.keyHash}`, label: `the POS at ${url} (API key #${account.keyHash})` };
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
 * catalog stored before sources were recorded is recognised as this POS's. Unit ids are the POS's own
 * (the sandbox derives them from its seed), so another account or the sandbox does not match.
 */
export function sameUnits(stored: readonly UnitKey[], pos: readonly UnitKey[]): boolean {
  if (stored.length === 0 || stored.length !== pos.length) return false;
  const keyOf = (unit: UnitKey) => `${unit.localId}\u0000${unit.code}`;
  const expected = new Set(stored.map(keyOf));
  const found = new Set(pos.map(keyOf));
  return expected.size === stored.length && found.size === pos.length && [...found].every((key) => expected.has(key));
}
