import { describe, expect, it } from 'vitest';
import { googleErrorOf } from '../../../../src/adapters/push/google-error.js';

describe("adapters/push/ Google's error body", () => {
  it('names the RPC status and Google’s words', () => {
    expect(googleErrorOf({ error: { code: 400, status: 'INVALID_ARGUMENT', message: 'Bad offer' } })).toEqual({
      rpc: 'INVALID_ARGUMENT',
      message: 'Bad offer',
    });
  });

  it('leaves out a blank message, so no caller writes "HTTP 400 INVALID_ARGUMENT: " with nothing after it', () => {
    expect(googleErrorOf({ error: { status: 'INVALID_ARGUMENT', message: '  ' } })).toEqual({ rpc: 'INVALID_ARGUMENT' });
  });

  it('finds nothing in an answer of another shape', () => {
    expect(googleErrorOf('<html>502</html>')).toEqual({});
    expect(googleErrorOf({ error: 'quota' })).toEqual({});
    expect(googleErrorOf(null)).toEqual({});
  });
});
