/** Feeds one client may wait for the first render of at once (docs/security.md#bounded-work). */
export const FIRST_RENDERS_PER_CLIENT = 2;

/**
 * How many first renders of feeds (a feed no render of which exists yet, which a request waits for) each
 * client waits for: anyone may ask for any unit's feed, and each is a render. A client past the limit is
 * answered `429` at once; its renders already asked for go on. Entries go when their count is back to 0.
 */
export interface RenderAdmission {
  /** The release to call when the render is done, or `undefined` when `client` waits for enough already. */
  admit(client: string): (() => void) | undefined;
}

export function createRenderAdmission(perClient = FIRST_RENDERS_PER_CLIENT): RenderAdmission {
  const waiting = new Map<string, number>();
  return {
    admit(client) {
      const count = waiting.get(client) ?? 0;
      if (count >= perClient) return undefined;
      waiting.set(client, count + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (waiting.get(client) ?? 1) - 1;
        if (left <= 0) waiting.delete(client);
        else waiting.set(client, left);
      };
    },
  };
}
