import { type VerdictSummary, verdictChannelName } from '../../core/push/channel-verdicts.js';
import { isGoogleHelpLink } from '../../core/push/google-links.js';
import { isMetaVerdicts, type MetaDiagnostics, type MetaVerdictSummary } from '../../core/push/meta-verdicts.js';
import type { ConsoleWarning, LocalText } from '../console/console-warnings.js';
import { warningTime } from '../console/console-warnings.js';

/**
 * The warnings from a channel's own verdicts on the items (docs/channel-push.md#googles-verdicts,
 * docs/report-codes.md): products it disapproves, with the issue that touches the most and what to do; the
 * account's own issues that stop products from showing; and a read of the verdicts that failed. Pure: the summary in.
 */

export type VerdictWarningCode = 'CHANNEL_DISAPPROVED' | 'CHANNEL_VERDICTS_FAILED' | 'CHANNEL_ACCOUNT_ISSUES';

type Texts = { readonly message: LocalText; readonly action: LocalText };

function disapproved(name: string, summary: VerdictSummary): Texts {
  const { approved, pending, disapproved: count } = summary.counts;
  const total = approved + pending + count;
  // The issue that disapproves the most (a demotion does not disapprove).
  const top = summary.topIssues.find((issue) => issue.severity === 'DISAPPROVED') ?? summary.topIssues[0];
  // Google's own words in each language where it rendered them, else its English description.
  const words = (lang: 'cs' | 'en') => {
    const title = top === undefined ? undefined : (summary.issueTexts?.[top.code]?.texts[lang]?.title ?? top.description);
    return title === undefined ? '' : ` (${title})`;
  };
  const issue =
    top === undefined
      ? { en: '', cs: '' }
      : {
          en: ` The most common issue: ${top.code}${words('en')}${
            top.attribute === undefined ? '' : `, attribute ${top.attribute}`
          }, on ${top.items} (e.g. product ${top.example}).`,
          cs: ` Nejčastější problém: ${top.code}${words('cs')}${
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

/** The account's issues that stop products from showing (Google's `ERROR`), in Google's words per language. */
function accountIssues(name: string, summary: VerdictSummary): Texts | undefined {
  const issues = summary.accountIssues;
  if (issues === undefined) return undefined;
  const errors = (lang: 'cs' | 'en') => (issues.texts[lang] ?? []).filter((issue) => issue.severity === 'ERROR');
  const [en, cs] = [errors('en'), errors('cs')];
  if (en.length === 0 && cs.length === 0) return undefined;
  const list = (found: typeof en) =>
    found.map((issue) => `${issue.title}${issue.impact === undefined ? '' : ` (${issue.impact})`}`).join('; ');
  return {
    message: {
      en: `${name} reports ${en.length} issue(s) with the Merchant Center account itself: ${list(en)}.`,
      cs: `${name} hlásí problémy samotného účtu Merchant Center (${cs.length}): ${list(cs)}.`,
    },
    action: {
      en: "They concern the account, not single products, and can keep every product from showing. The overview lists them with Google's steps; most are settled in Merchant Center (website verification, policies, shipping, tax).",
      cs: 'Týkají se účtu, ne jednotlivých produktů, a mohou zastavit zobrazování všech produktů. Přehled je uvádí i s kroky Googlu; většina se řeší v Merchant Center (ověření webu, zásady, doprava, daně).',
    },
  };
}

/** Meta's items left invalid by their last batch, with the message on the most. */
function metaInvalid(summary: MetaVerdictSummary): Texts {
  const top = summary.topMessages[0];
  const most =
    top === undefined
      ? { en: '', cs: '' }
      : {
          en: ` The most common: "${top.message}", on ${top.items} (e.g. item ${top.example}).`,
          cs: ` Nejčastější: „${top.message}“, u ${top.items} (např. položka ${top.example}).`,
        };
  return {
    message: {
      en: `Meta found ${summary.invalid} item(s) invalid when they were last sent.${most.en}`,
      cs: `Meta při posledním odeslání označila za neplatné položky: ${summary.invalid}.${most.cs}`,
    },
    action: {
      en: "Open the item's page: its \"Meta's verdict\" quotes Meta's message. Fix the value where it comes from (the POS, or the enrichment sheet); once the whole item is sent again and Meta takes it clean, the error clears: at the nightly reconciliation, or now with the admin area's reconcile (POST /admin/push/reconcile?channel=meta); a price or stock change alone does not clear it.",
      cs: 'Otevřete stránku položky: „Verdikt Mety“ cituje zprávu Mety. Opravte hodnotu tam, odkud pochází (v pokladně, nebo v tabulce obohacení); jakmile se celá položka znovu odešle a Meta ji přijme, chyba zmizí: při nočním srovnání, nebo hned srovnáním v administraci (POST /admin/push/reconcile?channel=meta); samotná změna ceny nebo zásoby ji nesmaže.',
    },
  };
}

/** Meta's catalog diagnostics that must be fixed (`MUST_FIX`). */
function metaMustFix(diagnostics: MetaDiagnostics): Texts | undefined {
  const found = diagnostics.groups.filter((group) => group.severity === 'MUST_FIX');
  if (found.length === 0) return undefined;
  const list = found.map((group) => `${group.title}${group.items === undefined ? '' : ` (${group.items})`}`).join('; ');
  return {
    message: {
      en: `Meta's catalog diagnostics name ${found.length} issue(s) to fix (read ${warningTime(diagnostics.readAt ?? '')}): ${list}.`,
      cs: `Diagnostika katalogu Mety uvádí problémy k opravě (${found.length}, načtena ${warningTime(diagnostics.readAt ?? '')}): ${list}.`,
    },
    action: {
      en: "They concern the catalog as a whole (missing attributes, image quality, policy, the pixel's connection). The overview lists them; open the catalog in Meta's Commerce Manager for the items and steps. The diagnostics are read again after META_DIAGNOSTICS_INTERVAL_MS.",
      cs: 'Týkají se katalogu jako celku (chybějící atributy, kvalita obrázků, zásady, propojení pixelu). Přehled je uvádí; položky a postup najdete v katalogu v Commerce Manageru Mety. Diagnostika se znovu načte za META_DIAGNOSTICS_INTERVAL_MS.',
    },
  };
}

function metaWarnings(summary: MetaVerdictSummary): ConsoleWarning[] {
  const warnings: ConsoleWarning[] = [];
  if (summary.invalid > 0)
    warnings.push({ code: 'CHANNEL_DISAPPROVED', severity: 'warning', subject: 'meta', ...metaInvalid(summary) });
  const diagnostics = summary.diagnostics;
  const mustFix = diagnostics === undefined ? undefined : metaMustFix(diagnostics);
  if (mustFix !== undefined) warnings.push({ code: 'CHANNEL_ACCOUNT_ISSUES', severity: 'warning', subject: 'meta', ...mustFix });
  const error = diagnostics?.lastError;
  if (error !== undefined) {
    warnings.push({
      code: 'CHANNEL_VERDICTS_FAILED',
      severity: 'info',
      subject: 'meta',
      message: {
        en: `Meta's catalog diagnostics could not be read (${warningTime(error.at)}): ${error.message}.`,
        cs: `Diagnostiku katalogu Mety se nepodařilo načíst (${warningTime(error.at)}): ${error.message}.`,
      },
      action: {
        en: 'Nothing, if it passes: they are read again after META_DIAGNOSTICS_INTERVAL_MS. If it repeats, check that META_ACCESS_TOKEN may read the catalog (catalog_management).',
        cs: 'Nic, pokud to přejde: znovu se načte za META_DIAGNOSTICS_INTERVAL_MS. Opakuje-li se to, zkontrolujte, že META_ACCESS_TOKEN smí katalog číst (catalog_management).',
      },
    });
  }
  return warnings;
}

export function verdictWarnings(channel: string, summary: VerdictSummary | MetaVerdictSummary | undefined): ConsoleWarning[] {
  if (summary === undefined) return [];
  if (isMetaVerdicts(summary)) return metaWarnings(summary);
  const name = verdictChannelName(channel);
  const warnings: ConsoleWarning[] = [];
  if (summary.readAt !== undefined && summary.counts.disapproved > 0) {
    warnings.push({ code: 'CHANNEL_DISAPPROVED', severity: 'warning', subject: channel, ...disapproved(name, summary) });
  }
  const account = accountIssues(name, summary);
  if (account !== undefined) warnings.push({ code: 'CHANNEL_ACCOUNT_ISSUES', severity: 'warning', subject: channel, ...account });
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
