import type { merchantapi_issueresolution_v1 } from '@googleapis/merchantapi';
import { convert } from 'html-to-text';
import { z } from 'zod';
import { channelText } from './channel-text.js';
import { isGoogleLink } from './google-links.js';

/**
 * Google's issue texts rendered for third-party interfaces (Merchant API `issueresolution/v1`:
 * `renderproductissues` and `renderaccountissues`), in the language asked for: the console shows them in Czech
 * and English beside Google's English codes (docs/channel-push.md#googles-verdicts). A rendered issue carries
 * no code: the texts of a product's issues are matched to its codes by elimination over example products
 * (`matchIssueTexts`), so one call per language and issue code, not per product, is enough.
 */

const text = z.string().nullish();

export const GoogleRenderedIssueSchema = z.object({
  title: text,
  impact: z
    .object({
      message: text,
      /** `ERROR`, `WARNING` or `INFO`. */
      severity: text,
      breakdowns: z
        .array(
          z.object({
            details: z.array(z.string()).nullish(),
            regions: z.array(z.object({ code: text, name: text })).nullish(),
          }),
        )
        .nullish(),
    })
    .nullish(),
  actions: z
    .array(
      z.object({
        buttonLabel: text,
        isAvailable: z.boolean().nullish(),
        externalAction: z.object({ type: text, uri: text }).nullish(),
        builtinSimpleAction: z
          .object({
            type: text,
            attributeCode: text,
            /** Text to show the shop (`SHOW_ADDITIONAL_CONTENT`): a title and paragraphs. */
            additionalContent: z.object({ title: text, paragraphs: z.array(z.string()).nullish() }).nullish(),
          })
          .nullish(),
      }),
    )
    .nullish(),
  /** The issue's detail as HTML; kept as plain text only (never embedded as HTML). */
  prerenderedContent: text,
});

/** `RenderProductIssuesResponse` and `RenderAccountIssuesResponse` have the same shape. */
export const GoogleRenderIssuesResponseSchema = z.object({
  renderedIssues: z.array(GoogleRenderedIssueSchema).nullish(),
});

// Compile-time check that the schemas read what the official client's types describe.
const _shapes: [
  (answer: merchantapi_issueresolution_v1.Schema$RenderProductIssuesResponse) => z.input<typeof GoogleRenderIssuesResponseSchema>,
  (answer: merchantapi_issueresolution_v1.Schema$RenderAccountIssuesResponse) => z.input<typeof GoogleRenderIssuesResponseSchema>,
] = [(answer) => answer, (answer) => answer];
void _shapes;

/** The request body: the detail as HTML (turned into text here), actions as links to Merchant Center. */
export const RENDER_ISSUES_BODY = {
  contentOption: 'PRE_RENDERED_HTML',
  userInputActionOption: 'REDIRECT_TO_MERCHANT_CENTER',
} satisfies merchantapi_issueresolution_v1.Schema$RenderIssuesRequestPayload;

/** The longest detail text kept (Google's details run to a few paragraphs). */
const DETAIL_MAX = 2_000;
const LINE_MAX = 300;

export interface RenderedIssueAction {
  readonly label: string;
  /** Where the action is done (Merchant Center, Google's help): `isGoogleLink` links only. */
  readonly uri?: string;
  /** The attribute to edit (`EDIT_ITEM_ATTRIBUTE`): in the bridge, the POS field or sheet column behind it. */
  readonly attribute?: string;
  /** What Google asks the shop to read (`SHOW_ADDITIONAL_CONTENT`), as plain text. */
  readonly content?: string;
}

/** One issue as Google words it in one language. */
export interface RenderedIssueText {
  readonly title: string;
  /** `ERROR`, `WARNING` or `INFO`. */
  readonly severity?: string;
  /** e.g. "Disapproves 1 offer in 1 country". */
  readonly impact?: string;
  /** Per group of regions, what the issue does there ("Products not showing in ads"). */
  readonly breakdowns?: readonly { readonly regions: string; readonly details: readonly string[] }[];
  /** The detail, as plain text. */
  readonly detail?: string;
  readonly actions?: readonly RenderedIssueAction[];
}

function detailOf(html: string | null | undefined): string | undefined {
  if (html === null || html === undefined || html.trim() === '') return undefined;
  const plain = convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      { selector: '.new-element', format: 'skip' },
    ],
  });
  return channelText(plain.replace(/\n{3,}/g, '\n\n'), DETAIL_MAX);
}

/**
 * An action the console can show: a link to Google, an attribute to fix, or text to read. One with none of
 * them (an action built into Google's own tools: verify a phone, claim the website) is left out; its steps
 * are in the issue's detail and in Merchant Center.
 */
function actionOf(
  raw: NonNullable<z.infer<typeof GoogleRenderedIssueSchema>['actions']>[number],
): RenderedIssueAction | undefined {
  const label = channelText(raw.buttonLabel, LINE_MAX);
  if (label === undefined || raw.isAvailable === false) return undefined;
  const uri = raw.externalAction?.uri;
  const attribute = channelText(raw.builtinSimpleAction?.attributeCode, 60);
  const extra = raw.builtinSimpleAction?.additionalContent;
  const content = channelText(
    [extra?.title, ...(extra?.paragraphs ?? [])].filter((part) => part != null && part !== '').join('\n'),
    DETAIL_MAX,
  );
  if (!isGoogleLink(uri) && attribute === undefined && content === undefined) return undefined;
  return {
    label,
    ...(isGoogleLink(uri) ? { uri } : {}),
    ...(attribute === undefined ? {} : { attribute }),
    ...(content === undefined ? {} : { content }),
  };
}

function textOf(raw: z.infer<typeof GoogleRenderedIssueSchema>): RenderedIssueText | undefined {
  const title = channelText(raw.title, LINE_MAX);
  if (title === undefined) return undefined;
  const breakdowns = (raw.impact?.breakdowns ?? [])
    .map((breakdown) => ({
      // Cut as every channel text is (by code points, trimmed; a blank name or detail is none).
      regions:
        channelText(
          (breakdown.regions ?? [])
            .map((region) => channelText(region.name) ?? channelText(region.code))
            .filter((name) => name !== undefined)
            .join(', '),
          LINE_MAX,
        ) ?? '',
      details: (breakdown.details ?? [])
        .map((detail) => channelText(detail, LINE_MAX))
        .filter((detail) => detail !== undefined)
        .slice(0, 10),
    }))
    .filter((breakdown) => breakdown.details.length > 0)
    .slice(0, 10);
  const actions = (raw.actions ?? []).map(actionOf).filter((action) => action !== undefined);
  const optional = {
    severity: channelText(raw.impact?.severity, 20),
    impact: channelText(raw.impact?.message, LINE_MAX),
    detail: detailOf(raw.prerenderedContent),
  };
  return {
    title,
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)),
    ...(breakdowns.length === 0 ? {} : { breakdowns }),
    ...(actions.length === 0 ? {} : { actions: actions.slice(0, 5) }),
  };
}

/** Reads a render answer: the issues with a title, in Google's order; a message when it is not one. */
export function parseRenderedIssues(answer: unknown): readonly RenderedIssueText[] | string {
  const parsed = GoogleRenderIssuesResponseSchema.safeParse(answer);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `the rendered issues could not be read: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim();
  }
  return (parsed.data.renderedIssues ?? []).map(textOf).filter((issue) => issue !== undefined);
}

/** A product whose issues were rendered: its issue codes (Google's) and the texts Google rendered for it. */
export interface RenderedExample {
  readonly codes: readonly string[];
  readonly rendered: readonly RenderedIssueText[];
}

/**
 * Which text is which code, by elimination: examples with fewer codes first; a text whose title is already a
 * known code's is that code; when one code and one text are left, they belong together. Anything else stays
 * unmatched (the console then shows Google's English description). Adds to `known`.
 */
export function matchIssueTexts(examples: readonly RenderedExample[], known: Map<string, RenderedIssueText>): void {
  const ordered = [...examples].sort((a, b) => a.codes.length - b.codes.length);
  for (let pass = 0; pass < 2; pass++) {
    for (const example of ordered) {
      const codes = [...new Set(example.codes)];
      const titles = new Set(codes.flatMap((code) => known.get(code)?.title ?? []));
      const open = codes.filter((code) => !known.has(code));
      const left = example.rendered.filter((issue) => !titles.has(issue.title));
      const [code] = open;
      const [issue] = left;
      if (open.length === 1 && left.length === 1 && code !== undefined && issue !== undefined) known.set(code, issue);
    }
  }
}
