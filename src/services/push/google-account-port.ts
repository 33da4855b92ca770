import type { GoogleDataSourceKind } from '../../core/push/google-data-source.js';
import type { GoogleFileFetch } from '../../core/push/google-file-upload.js';
import type { GoogleProductsPage } from '../../core/push/google-product-status.js';
import type { GoogleQuotaGroup } from '../../core/push/google-quota.js';
import type { RenderedIssueText } from '../../core/push/google-rendered-issues.js';

// The port of Google's account reads (the data source's kind, the quotas) as the Google channel uses it;
// `adapters/push/google-account-reads.ts` implements it over the Merchant API.

export type DataSourceRead =
  | { readonly kind: GoogleDataSourceKind }
  /** `retry`: a network failure, 5xx, 429 or refused token; else the source cannot take the push. */
  | { readonly problem: string; readonly retry: boolean };

export type QuotaRead = { readonly groups: readonly GoogleQuotaGroup[] } | { readonly problem: string };

/** One page of the account's processed products with Google's verdicts; `retry` as for `DataSourceRead`. */
export type ProductsPageRead = { readonly page: GoogleProductsPage } | { readonly problem: string; readonly retry: boolean };

/** The last fetch of a file data source, or why it could not be read. */
export type FileUploadRead = { readonly fetch: GoogleFileFetch } | { readonly problem: string };

/** Google's texts of a product's or the account's issues in one language, or why they could not be had. */
export type RenderedIssuesRead = { readonly issues: readonly RenderedIssueText[] } | { readonly problem: string };

export interface GoogleAccountReads {
  dataSource(): Promise<DataSourceRead>;
  quotas(): Promise<QuotaRead>;
  /** `products.list`, 1,000 products a page, from `pageToken` (the first page without). */
  productsPage(pageToken?: string): Promise<ProductsPageRead>;
  /** The last fetch of a file data source (`…/dataSources/{id}/fileUploads/latest`). */
  fileUpload(dataSourceId: string): Promise<FileUploadRead>;
  /**
   * Google's texts of the issues of one product (`renderproductissues`, the bridge's language and feed label)
   * or, without `offerId`, of the account (`renderaccountissues`), in `languageCode` (`cs`, `en`).
   */
  renderedIssues(subject: { readonly offerId?: string }, languageCode: string): Promise<RenderedIssuesRead>;
}
