import { settledWithin } from '../../core/async/settled-within.js';
import type { LeaderLease } from './leader-lease.js';

/**
 * Leadership of a group of instances on Redis (docs/scale-out.md): every third of the lease time the
 * leader renews its lease (compare-and-renew) and the others try to take it. The leader runs the scheduled
 * syncs and stores the catalog; an instance counts itself leader only while its last renewal is younger
 * than the lease, so a leader cut off from Redis stops leading before another can take over.
 */
export interface GroupCoordinator {
  /** Takes part from now on; the first round (taking the lease if it is free) is awaited. */
  start(): Promise<void>;
  isLeader(): boolean;
  /** One round now (an admin sync on an instance that found no leader): whether this instance leads after it. */
  tryLead(): Promise<boolean>;
  state(): GroupRole;
  /** Stops taking part and releases the lease if held (a shutdown: another takes over at once). */
  stop(): Promise<void>;
}

export interface GroupRole {
  readonly instance: string;
  readonly role: 'leader' | 'follower';
  /** Who holds the lease, as last seen. */
  readonly leader: string | undefined;
  /** The fencing token of the lease as last seen. */
  readonly token: number | undefined;
  readonly renewals: number;
  readonly takeovers: number;
  /** Why the last round failed (Redis does not answer), if it did. */
  readonly error: string | undefined;
}

export interface GroupCoordinatorDeps {
  readonly lease: LeaderLease;
  readonly instance: string;
  readonly leaseMs: number;
  readonly logger: { info(meta: object, message: string): void; warn(meta: object, message: string): void };
  /** Told when this instance becomes leader (`true`) or stops being one. */
  readonly onLeadership?: (leader: boolean) => void;
  readonly onRenewal?: () => void;
  /** Counts this instance as a live member of the group (every round). */
  readonly heartbeat?: () => Promise<void>;
  readonly onTakeover?: () => void;
}

export function createGroupCoordinator(deps: GroupCoordinatorDeps): GroupCoordinator {
  const { lease, leaseMs, logger } = deps;
  /** performance.now() until which the lease is surely ours: its last renewal's start plus the lease time. */
  let validUntil = 0;
  let leading = false;
  let leader: string | undefined;
  let token: number | undefined;
  let renewals = 0;
  let takeovers = 0;
  let error: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let watch: NodeJS.Timeout | undefined;
  let round: Promise<void> | undefined;

  const isLeader = () => lease.held() !== undefined && performance.now() < validUntil;

  function note(now: boolean, why: string): void {
    if (now === leading) return;
    leading = now;
    if (now) logger.info({ token }, why);
    else logger.warn({ reason: why }, 'this instance is no longer the leader');
    deps.onLeadership?.(now);
  }

  let stopped = false;

  async function once(): Promise<void> {
    const started = performance.now();
    try {
      if (stopped) return;
      if (lease.held() !== undefined) {
        if (await lease.renew()) {
          validUntil = started + leaseMs;
          renewals += 1;
          deps.onRenewal?.();
        } else {
          validUntil = 0;
        }
      } else {
        const taken = await lease.acquire();
        if (taken !== undefined) {
          validUntil = started + leaseMs;
          token = taken;
          takeovers += 1;
          deps.onTakeover?.();
        }
      }
      await deps.heartbeat?.();
      const holder = await lease.holder();
      leader = holder?.instance;
      token = holder?.token;
      error = undefined;
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure);
    }
    if (stopped) {
      // A round that ended after the shutdown began: it must not lead now.
      if (lease.held() !== undefined) await lease.release().catch(() => undefined);
      return;
    }
    note(isLeader(), 'this instance took the lease and leads the group');
  }

  function tick(): Promise<void> {
    round ??= once().finally(() => {
      round = undefined;
    });
    return round;
  }

  return {
    async start() {
      await tick();
      timer = setInterval(() => void tick(), Math.max(100, Math.floor(leaseMs / 3)));
      timer.unref();
      // Past its lease time without a renewal, a leader stops leading even if no round ends (Redis hangs).
      watch = setInterval(() => note(isLeader(), 'this instance leads the group again'), 250);
      watch.unref();
    },
    isLeader,
    async tryLead() {
      if (stopped) return false;
      await tick();
      return isLeader();
    },
    state: () => ({
      instance: deps.instance,
      role: isLeader() ? 'leader' : 'follower',
      leader,
      token,
      renewals,
      takeovers,
      error,
    }),
    async stop() {
      if (timer !== undefined) clearInterval(timer);
      if (watch !== undefined) clearInterval(watch);
      const wasLeading = isLeader();
      stopped = true;
      // Bounded: with Redis away a round waits for its command's own deadline.
      await settledWithin(round, STOP_WAIT_MS);
      validUntil = 0;
      note(false, 'shutting down');
      if (wasLeading) await settledWithin(lease.release(), STOP_WAIT_MS);
    },
  };
}

/** How long a shutdown waits for Redis before going on without it. */
const STOP_WAIT_MS = 500;
