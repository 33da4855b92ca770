/**
 * What kind of data source GOOGLE_MERCHANT_DATA_SOURCE_ID is (docs/decisions/0013-channel-push.md, "Primary or
 * supplemental"), from `GET datasources/v1/accounts/{a}/dataSources/{d}` (`Schema$DataSource` of
 * `@googleapis/merchantapi` datasources_v1): a primary API source takes insert, patch and delete; a
 * supplemental API source patches only; anything else cannot take the push. Pure.
 */

export type GoogleDataSourceKind = 'primary' | 'supplemental';

/** The kind, or a message naming the data source and why the push cannot use it. */
export function classifyDataSource(name: string, answer: unknown): GoogleDataSourceKind | { readonly problem: string } {
  const source = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>;
  const input = typeof source['input'] === 'string' ? source['input'] : undefined;
  if (input !== 'API') {
    return {
      problem: `data source ${name} is not an API data source (input ${input ?? 'unknown'}); nothing is pushed to Google`,
    };
  }
  if (typeof source['primaryProductDataSource'] === 'object' && source['primaryProductDataSource'] !== null) return 'primary';
  if (typeof source['supplementalProductDataSource'] === 'object' && source['supplementalProductDataSource'] !== null) {
    return 'supplemental';
  }
  return {
    problem: `data source ${name} is neither a primary nor a supplemental product data source; nothing is pushed to Google`,
  };
}

/** An HTTP answer to the data source read: `retry` for what may pass (network, 5xx, 429, 401), else a problem. */
export function dataSourceHttpProblem(name: string, status: number): { readonly problem: string; readonly retry: boolean } {
  if (status === 404) return { problem: `data source ${name} not found (HTTP 404); nothing is pushed to Google`, retry: false };
  if (status === 403) {
    return {
      problem: `data source ${name}: access denied (HTTP 403; is the service account a user of the Merchant Center account?); nothing is pushed to Google`,
      retry: false,
    };
  }
  return {
    problem: `data source ${name} could not be read (HTTP ${status})`,
    retry: status === 401 || status === 429 || status >= 500,
  };
}
