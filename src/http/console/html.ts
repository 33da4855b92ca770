import { formatDateTime, type Lang } from '../../core/text/local-text.js';

/** HTML escaping for every page the bridge renders (the console, the admin area): text and attribute values. */
export const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** A time in the reader's words, its ISO form kept for machines (`datetime`). */
export function timeElement(lang: Lang, iso: string): string {
  return `<time datetime="${escapeHtml(iso)}">${escapeHtml(formatDateTime(lang, iso))}</time>`;
}
