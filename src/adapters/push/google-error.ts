interface GoogleErrorBody {
  readonly error?: { readonly code?: unknown; readonly message?: unknown; readonly status?: unknown };
}

/**
 * The parts of Google's error body (`{"error": {"code", "message", "status"}}`) that a message names: the RPC
 * status (`INVALID_ARGUMENT`) and Google's own words (none when blank). Neither for an answer of any other shape.
 */
export function googleErrorOf(answer: unknown): { readonly rpc?: string; readonly message?: string } {
  const error = typeof answer === 'object' && answer !== null ? (answer as GoogleErrorBody).error : undefined;
  if (typeof error !== 'object' || error === null) return {};
  return {
    ...(typeof error.status === 'string' ? { rpc: error.status } : {}),
    ...(typeof error.message === 'string' && error.message.trim() !== '' ? { message: error.message } : {}),
  };
}
