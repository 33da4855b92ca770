/**
 * Waits until `condition` holds (returns true, or any value but `false`, `undefined` or `null`), polling every
 * `intervalMs`, and returns that value; rejects with `message` (and the last error the condition threw)
 * after `timeoutMs`. The bound is a safety net for a broken test, not a timing assertion: keep it generous.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  { timeoutMs = 20_000, intervalMs = 10, message = 'the condition' }: WaitForOptions = {},
): Promise<Exclude<T, false | undefined | null>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value !== false && value !== undefined && value !== null) return value as Exclude<T, false | undefined | null>;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      throw new Error(`waited ${timeoutMs} ms for ${message}`, lastError === undefined ? {} : { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export interface WaitForOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
  /** What is awaited, for the error. */
  readonly message?: string;
}
