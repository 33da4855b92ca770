import type { Lang } from '../../core/text/local-text.js';

/** Czech titles of the built-in feeds; templates name themselves (a channel's name reads the same in both). */
const CZECH_TITLES: Readonly<Record<string, string>> = {
  'products.json': 'Katalog (JSON)',
  'products.csv': 'Katalog (CSV)',
  'products.xlsx': 'Katalog (sešit Excelu)',
  'changes.json': 'Změny (JSON)',
};

/** A feed's title in the reader's language. */
export function feedTitle(lang: Lang, file: string, title: string): string {
  return lang === 'cs' ? (CZECH_TITLES[file] ?? title) : title;
}

/** A POS measure unit as people write it: the POS says `piece` or `ks` for pieces. */
export function measureUnitText(lang: Lang, unit: string): string {
  const lower = unit.toLowerCase();
  if (lower === 'piece' || lower === 'ks' || lower === 'pcs') return lang === 'cs' ? 'ks' : 'pcs';
  return unit;
}
