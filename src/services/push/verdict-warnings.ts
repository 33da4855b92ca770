import { type VerdictSummary, verdictChannelName } from '../../core/push/channel-verdicts.js';
import { isGoogleHelpLink } from '../../core/push/google-product-status.js';
import type { ConsoleWarning, LocalText } from '../console/console-warnings.js';
import { warningTime } from '../console/console-warnings.js';

/**
 * The warnings from a channel's own verdicts on the items (docs/channel-push.md#googles-verdicts,
 * docs/report-codes.md): products it disapproves, with the issue that touches the most and what to do;
 * and a read of the verdicts that failed. Pure: the summary in.
 */

export type VerdictWarningCode = 'CHANNEL_DISAPPROVED' | 'CHANNEL_VERDICTS_FAILED';

type Texts = { readonly message: LocalText; readonly action: LocalText };

function disapproved(name: string, summary: VerdictSummary): Texts {
  const { approved, pending, disapproved: count } = summary.counts;
  const total = approved + pending + count;
  // The issue that disapproves the most (a demotion does not disapprove).
  const top = summary.topIssues.find((issue) => issue.severity === 'DISAPPROVED') ?? summary.topIssues[0];
  const issue =
    top === undefined
      ? { en: '', cs: '' }
      : {
          en: ` The most common issue: ${top.code}${top.description === undefined ? '' : ` (${top.description})`}${
            top.attribute === undefined ? '' : `, attribute ${top.attribute}`
          }, on ${top.items} (e.g. product ${top.example}).`,
          cs: ` Nejčastější problém: ${top.code}${top.description === undefined ? '' : ` (${top.description})`}${
            top.attribute === undefined ? '' : `, atribut ${top.attribute}`
          }, u ${top.items} (např. produkt ${top.example}).`,
        };
  const link = top?.documentation;
  const help = isGoogleHelpLink(link) ? { en: ` Google's help: ${link}`, cs: ` Nápověda Googlu: ${link}` } : { en: '', cs: '' };
  return {
    message: {
      en: `${name} disapproves ${count} of ${total} products (read ${warningTime(summary.readAt ?? '')}).${issue.en}`,
      cs: `${name} zamítá ${count} z ${total} produktů (načteno ${warningTime(summary.readAt ?? '')}).${issue.cs}`,
    },
    action: {
      en: `Open a product's page: its "Google's verdict" names each issue and the attribute at fault. Fix it where the value comes from (the POS, or the enrichment sheet for images, links, brands and categories); the push sends the fix, and the next read shows Google's new verdict.${help.en}`,
      cs: `Otevřete stránku produktu: „Verdikt Googlu“ uvádí každý problém a atribut, kterého se týká. Opravte ho tam, odkud hodnota pochází (v pokladně, nebo v tabulce obohacení u obrázků, odkazů, značek a kategorií); odesílání opravu pošle a další načtení ukáže nový verdikt Googlu.${help.cs}`,
    },
  };
}

function failed(name: string, summary: VerdictSummary, error: { readonly at: string; readonly message: string }): Texts {
  const kept =
    summary.readAt === undefined
      ? { en: 'No verdict has been read yet.', cs: 'Zatím nebyl načten žádný verdikt.' }
      : {
          en: `The verdicts read ${warningTime(summary.readAt)} are shown meanwhile.`,
          cs: `Mezitím se zobrazují verdikty načtené ${warningTime(summary.readAt)}.`,
        };
  return {
    message: {
      en: `${name}'s verdicts on the products could not be read (${warningTime(error.at)}): ${error.message}. ${kept.en}`,
      cs: `Verdikty ${name === 'Google' ? 'Googlu' : name} k produktům se nepodařilo načíst (${warningTime(error.at)}): ${error.message}. ${kept.cs}`,
    },
    action: {
      en: "Nothing, if it passes: the next read comes at GOOGLE_STATUS_INTERVAL_MS. If it repeats, check what the message names (the service account's access, the quota).",
      cs: 'Nic, pokud to přejde: další načtení přijde za GOOGLE_STATUS_INTERVAL_MS. Opakuje-li se to, zkontrolujte, co zpráva uvádí (přístup servisního účtu, kvótu).',
    },
  };
}

export function verdictWarnings(channel: string, summary: VerdictSummary | undefined): ConsoleWarning[] {
  if (summary === undefined) return [];
  const name = verdictChannelName(channel);
  const warnings: ConsoleWarning[] = [];
  if (summary.readAt !== undefined && summary.counts.disapproved > 0) {
    warnings.push({ code: 'CHANNEL_DISAPPROVED', severity: 'warning', subject: channel, ...disapproved(name, summary) });
  }
  if (summary.lastError !== undefined) {
    warnings.push({
      code: 'CHANNEL_VERDICTS_FAILED',
      severity: 'info',
      subject: channel,
      ...failed(name, summary, summary.lastError),
    });
  }
  return warnings;
}
