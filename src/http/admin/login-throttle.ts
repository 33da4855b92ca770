/**
 * Guessing ADMIN_TOKEN through the login form (docs/console.md#admin-area): at most `maxFailures` wrong
 * tokens per client address within `windowMs`, then refused until the window ends. The table is bounded
 * (`maxClients`, oldest dropped first), so a flood of addresses costs memory once, not without end. Per
 * instance: behind a load balancer each instance counts its own, which multiplies the budget by the
 * instances, not more.
 */
export interface LoginThrottle {
  /** Milliseconds until `client` may try again; 0 when it may now. */
  blockedFor(client: string): number;
  fail(client: string): void;
  succeed(client: string): void;
}

interface Attempts {
  failures: number;
  readonly since: number;
}

export function createLoginThrottle(options: {
  readonly now: () => Date;
  readonly maxFailures?: number;
  readonly windowMs?: number;
  readonly maxClients?: number;
}): LoginThrottle {
  const maxFailures = options.maxFailures ?? 10;
  const windowMs = options.windowMs ?? 15 * 60_000;
  const maxClients = options.maxClients ?? 10_000;
  const clients = new Map<string, Attempts>();
  const current = (client: string): Attempts | undefined => {
    const attempts = clients.get(client);
    if (attempts !== undefined && options.now().getTime() - attempts.since >= windowMs) {
      clients.delete(client);
      return undefined;
    }
    return attempts;
  };
  return {
    blockedFor(client) {
      const attempts = current(client);
      if (attempts === undefined || attempts.failures < maxFailures) return 0;
      return attempts.since + windowMs - options.now().getTime();
    },
    fail(client) {
      const attempts = current(client);
      if (attempts !== undefined) {
        attempts.failures += 1;
        return;
      }
      if (clients.size >= maxClients) {
        const oldest = clients.keys().next().value;
        if (oldest !== undefined) clients.delete(oldest);
      }
      clients.set(client, { failures: 1, since: options.now().getTime() });
    },
    succeed(client) {
      clients.delete(client);
    },
  };
}
