import type { merchantapi_datasources_v1 } from '@googleapis/merchantapi';
import { z } from 'zod';
import { channelText } from './channel-text.js';

/**
 * Google's last fetch of a file data source (the bridge's `google.xml` registered in Merchant Center), as
 * `dataSources.fileUploads.get` of `…/fileUploads/latest` reports it: when, whether it was processed, how
 * many items it created and updated, and the issues of the file (docs/channel-push.md#googles-verdicts).
 */

const text = z.string().nullish();

export const GoogleFileUploadSchema = z.object({
  name: text,
  dataSourceId: text,
  /** `SUCCEEDED`, `FAILED` or `IN_PROGRESS`. */
  processingState: text,
  uploadTime: text,
  itemsTotal: text,
  itemsCreated: text,
  itemsUpdated: text,
  issues: z
    .array(
      z.object({
        title: text,
        description: text,
        code: text,
        count: text,
        severity: text,
        documentationUri: text,
      }),
    )
    .nullish(),
});

// Compile-time check against the official client's type.
const _shape: (upload: merchantapi_datasources_v1.Schema$FileUpload) => z.input<typeof GoogleFileUploadSchema> = (upload) =>
  upload;
void _shape;

export interface GoogleFileIssue {
  readonly code: string;
  readonly severity: string;
  readonly title?: string;
  readonly description?: string;
  readonly count?: number;
  readonly documentation?: string;
}

/** What the bridge keeps of the last fetch of the file source. */
export interface GoogleFileFetch {
  readonly dataSource: string;
  readonly state: string;
  readonly uploadedAt?: string;
  readonly items: { readonly total?: number; readonly created?: number; readonly updated?: number };
  readonly issues: readonly GoogleFileIssue[];
}

/** An int64 as Google writes it (decimal text); `undefined` when absent or not a number. */
function count(value: string | null | undefined): number | undefined {
  const number = channelText(value) === undefined ? Number.NaN : Number(value);
  return Number.isSafeInteger(number) ? number : undefined;
}

/** `value` without its `undefined` fields (the kept shape has optional fields, never `undefined` ones). */
type Defined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};
function defined<T extends object>(value: T): Defined<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Defined<T>;
}

/** The answer as the bridge keeps it, or a message when it is not a file upload. */
export function parseFileUpload(answer: unknown, dataSource: string): GoogleFileFetch | string {
  const parsed = GoogleFileUploadSchema.safeParse(answer);
  if (!parsed.success)
    return `fileUploads/latest answered something other than a file upload: ${parsed.error.issues[0]?.message ?? ''}`;
  const upload = parsed.data;
  return defined({
    dataSource,
    state: channelText(upload.processingState) ?? 'PROCESSING_STATE_UNSPECIFIED',
    uploadedAt: channelText(upload.uploadTime),
    items: defined({ total: count(upload.itemsTotal), created: count(upload.itemsCreated), updated: count(upload.itemsUpdated) }),
    issues: (upload.issues ?? []).map((issue) =>
      defined({
        code: channelText(issue.code) ?? 'unknown',
        severity: channelText(issue.severity) ?? 'SEVERITY_UNSPECIFIED',
        title: channelText(issue.title),
        description: channelText(issue.description),
        count: count(issue.count),
        documentation: channelText(issue.documentationUri),
      }),
    ),
  });
}
