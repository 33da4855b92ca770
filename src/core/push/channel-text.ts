import { truncateText } from '../feeds/truncate-text.js';

/**
 * A text from a channel's answer as the bridge keeps it: trimmed, absent when empty, and at most `max` code
 * points when given (never half a character). One rule for every field read back from Google and Meta.
 */
export function channelText(value: string | null | undefined, max?: number): string | undefined {
  const trimmed = value?.trim();
  if (trimmed === undefined || trimmed === '') return undefined;
  return max === undefined ? trimmed : truncateText(trimmed, max);
}
