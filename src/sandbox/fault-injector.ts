import { z } from 'zod';
import { createRandom, hash32 } from './prng.js';

export const FAULT_ENDPOINTS = [
  'article-list',
  'unit-list',
  'movement-list',
  'client-get',
  'price-list',
  'stock-export',
  'stock-export-all',
  'client-import',
  'assortment-import',
] as const;
export type FaultEndpoint = (typeof FAULT_ENDPOINTS)[number];

export const FAULT_MODES = [
  'latency',
  'error',
  'malformed',
  'truncated',
  'hang',
  'invalid',
  'empty',
  'endless',
  'trickle',
  'long-line',
  'gzip-bomb',
  'entities',
] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

export const FaultRuleSchema = z
  .object({
    endpoint: z.enum([...FAULT_ENDPOINTS, '*']),
    mode: z.enum(FAULT_MODES),
    rate: z.number().min(0).max(1).default(1),
    status: z.number().int().min(400).max(599).optional(),
    latencyMs: z.number().int().min(0).max(600_000).optional(),
    intervalMs: z.number().int().min(1).max(60_000).optional(),
    retryAfterSeconds: z.number().int().min(0).max(86_400).optional(),
    times: z.number().int().min(1).optional(),
  })
  .strict();
export type FaultRuleInput = z.input<typeof FaultRuleSchema>;

/** PUT takes one rule or a list of rules. */
export const FaultRuleListSchema = z.array(FaultRuleSchema).max(100);

export interface ActiveFault {
  readonly id: number;
  readonly endpoint: FaultEndpoint | '*';
  readonly mode: FaultMode;
  readonly rate: number;
  /** Status of `error` mode (default 500). */
  readonly status: number;
  /** Delay of `latency` mode (default 1000 ms). */
  readonly latencyMs: number;
  /** Pause between the bytes of `trickle` mode (default 200 ms). */
  readonly intervalMs: number;
  /** Retry-After of a 429 (default 1 s). */
  readonly retryAfterSeconds: number;
  /** Matching requests this rule still applies to; undefined = unlimited. */
  remaining: number | undefined;
}

export interface FaultInjector {
  /** Replaces every rule. */
  set(rules: readonly z.output<typeof FaultRuleSchema>[]): ActiveFault[];
  add(rule: z.output<typeof FaultRuleSchema>): ActiveFault;
  list(): ActiveFault[];
  clear(): void;
  /** The fault to apply to one request of `endpoint`, consuming one of its `times`. */
  take(endpoint: FaultEndpoint): ActiveFault | undefined;
}

const SALT_FAULTS = 30;

/**
 * Run-time fault rules. The first rule naming the endpoint (or `*`) decides; its `rate` is rolled with a
 * PRNG seeded from the sandbox seed, so a test sees the same sequence of hits and misses on every run.
 */
export function createFaultInjector(seed: number): FaultInjector {
  const random = createRandom(hash32(seed, SALT_FAULTS));
  let rules: ActiveFault[] = [];
  let nextId = 1;

  function toActive(rule: z.output<typeof FaultRuleSchema>): ActiveFault {
    return {
      id: nextId++,
      endpoint: rule.endpoint,
      mode: rule.mode,
      rate: rule.rate,
      status: rule.status ?? 500,
      latencyMs: rule.latencyMs ?? 1000,
      intervalMs: rule.intervalMs ?? 200,
      retryAfterSeconds: rule.retryAfterSeconds ?? 1,
      remaining: rule.times,
    };
  }

  return {
    set(input) {
      rules = input.map(toActive);
      return [...rules];
    },
    add(input) {
      const rule = toActive(input);
      rules.push(rule);
      return rule;
    },
    list: () => [...rules],
    clear() {
      rules = [];
    },
    take(endpoint) {
      const rule = rules.find((candidate) => candidate.endpoint === endpoint || candidate.endpoint === '*');
      if (rule === undefined) return undefined;
      // Only partial rates draw from the PRNG, so adding a rate-1 rule does not shift other sequences.
      if (rule.rate < 1 && !random.chance(rule.rate)) return undefined;
      if (rule.remaining !== undefined) {
        rule.remaining -= 1;
        if (rule.remaining <= 0) rules = rules.filter((candidate) => candidate !== rule);
      }
      return rule;
    },
  };
}
