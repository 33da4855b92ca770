import { describe, expect, it } from 'vitest';
import { cleanMessage, MAX_MESSAGE_CHARS } from '../../../../src/adapters/push/channel-http.js';
import { cutPushError, PUSH_ERROR_MAX } from '../../../../src/services/push/push-worker.js';

const keep = (text: string) => text;

describe('adapters/push/ a channel message cut short', () => {
  it('keeps a message of the limit whole, and cuts a longer one with an ellipsis', () => {
    expect(cleanMessage('a'.repeat(MAX_MESSAGE_CHARS), keep)).toBe('a'.repeat(MAX_MESSAGE_CHARS));
    expect(cleanMessage('a'.repeat(MAX_MESSAGE_CHARS + 5), keep)).toBe(`${'a'.repeat(MAX_MESSAGE_CHARS - 1)}…`);
  });

  it('never leaves half of a surrogate pair (an emoji quoted from a product title)', () => {
    const cleaned = cleanMessage(`${'a'.repeat(MAX_MESSAGE_CHARS - 2)}💡💡💡`, keep);
    const cut = cutPushError(`${'a'.repeat(PUSH_ERROR_MAX - 1)}💡💡`);

    expect(cleaned).toBe(`${'a'.repeat(MAX_MESSAGE_CHARS - 2)}💡…`);
    expect(cut).toBe(`${'a'.repeat(PUSH_ERROR_MAX - 1)}💡`);
  });
});
