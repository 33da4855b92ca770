/**
 * What each console warning says (docs/console.md#warnings), in English and Czech: what is wrong and what
 * to do. Functions of the warning's facts; numbers come formatted by the page's language.
 */
import { formatNumber, type LocalText, plural } from '../../core/text/local-text.js';

export type { LocalText };

/** Czech plural forms: 1 / 2–4 / 0 and 5+ (`#` is the count). Counts here are of items and rows, never negative. */
function csPlural(count: number, one: string, few: string, other: string): string {
  return plural('cs', count, { one, few, other });
}

function enPlural(count: number, one: string, other: string): string {
  return plural('en', count, { one, other });
}

const csNumber = (value: number) => formatNumber('cs', value);
const enNumber = (value: number) => formatNumber('en', value);

/** What to give items that lack `attribute` (the usual first-run gaps), for an empty or poor feed. */
export function attributeHint(attribute: string): LocalText {
  const name = attribute.toLowerCase();
  if (name.includes('image') || name.includes('img')) {
    return {
      en: 'set FEED_IMAGE_URL or give the enrichment sheet an image_link column',
      cs: 'nastavte FEED_IMAGE_URL nebo doplňte do tabulky obohacení sloupec image_link',
    };
  }
  if (/(^|[^a-z])(link|url)$|^url$/.test(name)) {
    return {
      en: 'set FEED_PRODUCT_URL (e.g. https://shop.example.cz/p/{code}) or give the enrichment sheet a link column',
      cs: 'nastavte FEED_PRODUCT_URL (např. https://shop.example.cz/p/{code}) nebo doplňte do tabulky obohacení sloupec link',
    };
  }
  if (name.includes('brand') || name === 'manufacturer') {
    return {
      en: 'set FEED_BRAND or give the enrichment sheet a brand column',
      cs: 'nastavte FEED_BRAND nebo doplňte do tabulky obohacení sloupec brand',
    };
  }
  if (name.includes('description')) {
    return { en: 'give the enrichment sheet a description column', cs: 'doplňte do tabulky obohacení sloupec description' };
  }
  if (name.includes('categor') || name === 'product_type') {
    return {
      en: 'give the enrichment sheet category columns (group:{id} rows cover a whole article group)',
      cs: 'doplňte do tabulky obohacení sloupce kategorií (řádky group:{id} pokryjí celou skupinu artiklů)',
    };
  }
  if (name.includes('price')) {
    return {
      en: 'check the prices in the POS price lists (a price of 0 is never advertised)',
      cs: 'zkontrolujte ceny v cenících pokladny (nulová cena se nikdy neinzeruje)',
    };
  }
  return {
    en: 'fix the value in the POS or the enrichment sheet; the product page shows why each item is left out',
    cs: 'opravte hodnotu v pokladně nebo v tabulce obohacení; stránka produktu ukáže, proč je položka vynechána',
  };
}

/** A hint said on its own, as an action: a sentence. */
function asSentence(text: LocalText): LocalText {
  const sentence = (value: string) => `${value.charAt(0).toUpperCase()}${value.slice(1)}.`;
  return { en: sentence(text.en), cs: sentence(text.cs) };
}

export const TEXTS = {
  noProductLink: {
    message: {
      en: 'Products have no link: FEED_PRODUCT_URL is not set and the enrichment sheet has no link column. Google, Heureka and Zboží leave out every item without a link.',
      cs: 'Produkty nemají odkaz: FEED_PRODUCT_URL není nastavená a tabulka obohacení nemá sloupec link. Google, Heureka i Zboží vynechají každou položku bez odkazu.',
    },
    action: asSentence(attributeHint('link')),
  },
  noBrand: {
    message: {
      en: 'Products have no brand: FEED_BRAND is not set and the enrichment sheet has no brand column. Google and Heureka rank and pair items without a brand worse.',
      cs: 'Produkty nemají značku: FEED_BRAND není nastavená a tabulka obohacení nemá sloupec brand. Google a Heureka řadí a párují položky bez značky hůře.',
    },
    action: {
      en: 'Set FEED_BRAND when you sell one brand (e.g. FEED_BRAND=Pekárna Novák), otherwise add a brand column to the enrichment sheet.',
      cs: 'Prodáváte-li jedinou značku, nastavte FEED_BRAND (např. FEED_BRAND=Pekárna Novák), jinak doplňte do tabulky obohacení sloupec brand.',
    },
  },
  sandboxPos: (description: string) => ({
    message: {
      en: `Reading the built-in sandbox POS (made-up products), not your POS: ${description}.`,
      cs: `Bridge čte vestavěnou zkušební pokladnu (smyšlené produkty), ne vaši pokladnu: ${description}.`,
    },
    action: {
      en: 'Set POS_BASE_URL and POS_API_KEY to read your POS.',
      cs: 'Nastavte POS_BASE_URL a POS_API_KEY, aby bridge četl vaši pokladnu.',
    },
  }),
  storeDown: (since: string, reason: string) => ({
    message: {
      en: `The store (STORE_URL) does not answer since ${since}: ${reason}. Feeds are served from memory; nothing new is stored.`,
      cs: `Úložiště (STORE_URL) neodpovídá od ${since}: ${reason}. Feedy se podávají z paměti; nic nového se neukládá.`,
    },
    action: {
      en: 'Check that the store (SQLite file or Redis) is running and reachable; once it is back, the bridge writes the served catalog back by itself.',
      cs: 'Zkontrolujte, že úložiště (soubor SQLite nebo Redis) běží a je dostupné; až se vrátí, bridge do něj podávaný katalog sám zapíše.',
    },
  }),
  syncFailed: (job: 'catalog' | 'stock', code: string, detail: string, when: string, next: string | undefined) => ({
    message: {
      en: `The last ${job === 'catalog' ? 'full catalog' : 'stock'} sync failed (${code}, ${when}): ${detail}. The last good catalog is still served.`,
      cs: `Poslední ${job === 'catalog' ? 'úplná synchronizace katalogu' : 'synchronizace skladu'} selhala (${code}, ${when}): ${detail}. Dál se podává poslední dobrý katalog.`,
    },
    action: {
      en: `See what ${code} means and check the POS (address, key, whether it answers).${next === undefined ? '' : ` The bridge tries again by itself; next try: ${next}.`}`,
      cs: `Podívejte se, co znamená ${code}, a zkontrolujte pokladnu (adresu, klíč, zda odpovídá).${next === undefined ? '' : ` Bridge to zkusí znovu sám; další pokus: ${next}.`}`,
    },
  }),
  syncRefused: (reason: string, when: string) => ({
    message: {
      en: `The last full sync was refused (${when}): ${reason}. The previous catalog is still served.`,
      cs: `Poslední úplná synchronizace byla odmítnuta (${when}): ${reason}. Dál se podává předchozí katalog.`,
    },
    action: {
      en: 'Check in the POS whether the products really went away; if they did on purpose, raise SYNC_MAX_SHRINK or run a sync by hand.',
      cs: 'Ověřte v pokladně, zda produkty opravdu zmizely; pokud záměrně, zvyšte SYNC_MAX_SHRINK nebo spusťte synchronizaci ručně.',
    },
  }),
  syncRows: (code: string, count: number) => ({
    message: {
      en: `The last full sync reported ${enPlural(count, '# row or article', '# rows or articles')} as ${code}.`,
      cs: `Poslední úplná synchronizace nahlásila ${csPlural(count, '# řádek nebo artikl', '# řádky nebo artikly', '# řádků nebo artiklů')} s kódem ${code}.`,
    },
    action: {
      en: 'See what the code means and fix the rows in the POS; the run’s report (Sync history, JSON) lists the first examples.',
      cs: 'Podívejte se, co kód znamená, a opravte řádky v pokladně; zpráva běhu (Historie synchronizací, JSON) uvádí první příklady.',
    },
  }),
  emptyFeed: (feed: string, dropped: number, attribute: string) => ({
    message: {
      en: `${feed} is empty: no item passes its rules (${enPlural(dropped, '# item', '# items')} left out, mostly for a missing or invalid ${attribute}).`,
      cs: `${feed} je prázdný: pravidly neprojde žádná položka (${csPlural(dropped, 'vynechána # položka', 'vynechány # položky', 'vynecháno # položek')}, nejčastěji kvůli chybějící nebo neplatné hodnotě ${attribute}).`,
    },
    action: asSentence(attributeHint(attribute)),
  }),
  itemsLeftOut: (feed: string, dropped: number, total: number, attribute: string) => ({
    message: {
      en: `${feed} leaves out ${enNumber(dropped)} of ${enPlural(total, '# item', '# items')} for a missing or invalid value (mostly ${attribute}).`,
      cs: `${feed} vynechává ${csNumber(dropped)} z ${csPlural(total, '# položky', '# položek', '# položek')} kvůli chybějící nebo neplatné hodnotě (nejčastěji ${attribute}).`,
    },
    action: asSentence(attributeHint(attribute)),
  }),
  poorFeed: (name: string, feeds: string) => ({
    message: {
      en: `Most items of these feeds have no ${name}, which their channels recommend (items without it / items): ${feeds}. Such items are listed but rank and pair worse.`,
      cs: `Většina položek těchto feedů nemá hodnotu ${name}, kterou jejich kanály doporučují (položky bez ní / všechny položky): ${feeds}. Takové položky se zobrazí, ale řadí a párují hůře.`,
    },
    action: asSentence(attributeHint(name)),
  }),
  enrichmentNotUpdated: (code: string, detail: string, kept: boolean) => ({
    message: {
      en: `The enrichment sheet could not be updated (${code}): ${detail}. ${kept ? 'The sheet read before stays in use.' : 'No sheet is applied.'}`,
      cs: `Tabulku obohacení se nepodařilo aktualizovat (${code}): ${detail}. ${kept ? 'Dál se používá dříve načtená tabulka.' : 'Žádná tabulka se nepoužívá.'}`,
    },
    action: {
      en: 'Check ENRICHMENT_SOURCE (the address, that it is shared, its format); the sheet is read again at the next sync.',
      cs: 'Zkontrolujte ENRICHMENT_SOURCE (adresu, sdílení, formát); tabulka se znovu načte při příští synchronizaci.',
    },
  }),
  enrichmentPoorMatch: (matched: number, rows: number, keyColumn: string) => ({
    message: {
      en: `The enrichment sheet names a product in only ${enNumber(matched)} of its ${enPlural(rows, '# row', '# rows')} (key column ${keyColumn}); the other rows do nothing.`,
      cs: `Tabulka obohacení odkazuje na produkt jen v ${csNumber(matched)} z ${csPlural(rows, '# řádku', '# řádků', '# řádků')} (klíčový sloupec ${keyColumn}); ostatní řádky nic nedělají.`,
    },
    action: {
      en: 'Is the key column the right one? Use ids, EANs or codes as the POS has them (see docs/enrichment.md).',
      cs: 'Je klíčový sloupec správný? Použijte id, EAN nebo kódy tak, jak je má pokladna (viz docs/enrichment.md).',
    },
  }),
  enrichmentUnknownFeed: (names: string, feeds: string) => ({
    message: {
      en: `The enrichment sheet's exclude column names feeds that do not exist, so those exclusions do nothing: ${names}.`,
      cs: `Sloupec exclude tabulky obohacení jmenuje feedy, které neexistují, takže tato vyloučení nic nedělají: ${names}.`,
    },
    action: {
      en: `Use the names of the feeds (${feeds}), or * for all.`,
      cs: `Použijte názvy feedů (${feeds}), nebo * pro všechny.`,
    },
  }),
  feedCacheTooSmall: (mib: number, budget: number, needed: number) => ({
    message: {
      en: `The pre-rendered feeds take ${mib} MiB on disk, more than the space for feed files (FEED_CACHE_MB=${budget}): they are kept anyway, so the bridge uses more disk than that, and single-unit feeds and downloads are rendered again more often.`,
      cs: `Předem vykreslené feedy zabírají na disku ${mib} MiB, víc než místo pro soubory feedů (FEED_CACHE_MB=${budget}): ponechají se i tak, takže bridge zabere víc disku, a feedy jednotlivých prodejen a stahování se vykreslují častěji znovu.`,
    },
    action: { en: `Set FEED_CACHE_MB to at least ${needed}.`, cs: `Nastavte FEED_CACHE_MB alespoň na ${needed}.` },
  }),
  feedFilesFailed: (feed: string, message: string, at: string) => ({
    message: {
      en: `The feed ${feed} could not be rendered into its file (${at}): ${message}. Its previous file is still served, so pollers get an older version.`,
      cs: `Feed ${feed} se nepodařilo vykreslit do souboru (${at}): ${message}. Dál se posílá jeho předchozí soubor, takže odběratelé dostávají starší verzi.`,
    },
    action: {
      en: 'Check the free space and permissions of the feed files folder (FEED_FILES_DIR); the next render writes it again.',
      cs: 'Zkontrolujte volné místo a oprávnění složky souborů feedů (FEED_FILES_DIR); další vykreslení ho zapíše znovu.',
    },
  }),
} as const;
