import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Histogram } from 'prom-client';

/** Event-loop delay as `/readyz` shows it: the worst of the last minute, and the median and p99 of it. */
export interface EventLoopDelaySummary {
  readonly maxMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The window the figures cover (seconds). */
  readonly windowSeconds: number;
}

export interface EventLoopMonitor {
  summary(): EventLoopDelaySummary;
  stop(): void;
}

export interface EventLoopMonitorOptions {
  /** Where every second's samples go (`catalog_bridge_event_loop_delay_seconds`). */
  readonly histogram: Histogram;
  /** Sampling resolution of the delay timer (ms); default 10. */
  readonly resolutionMs?: number;
  /** How many one-second periods the summary covers; default 60. */
  readonly windowSeconds?: number;
}

interface Period {
  readonly max: number;
  readonly p50: number;
  readonly p99: number;
}

/**
 * Watches the main thread's event-loop delay with `perf_hooks.monitorEventLoopDelay` (a libuv timer
 * every `resolutionMs` that records how late it fires). Every second the period's samples are moved
 * into the Prometheus histogram (each percentile point of the period's HDR histogram weighs the share of
 * samples it stands for) and the period's max, p50 and p99 kept for the summary; then it starts afresh.
 * The sampler's own work is a few dozen histogram observations a second.
 */
export function createEventLoopMonitor(options: EventLoopMonitorOptions): EventLoopMonitor {
  const resolution = options.resolutionMs ?? 10;
  const windowSeconds = options.windowSeconds ?? 60;
  const delay = monitorEventLoopDelay({ resolution });
  delay.enable();
  const periods: Period[] = [];

  function flush(): void {
    const count = delay.count;
    if (count > 0) {
      // The timer's own interval is not delay: only what came on top of it is.
      const late = (ns: number) => Math.max(0, ns / 1e6 - resolution);
      let previousPercentile = 0;
      for (const [percentile, ns] of delay.percentiles) {
        const samples = Math.round(((percentile - previousPercentile) / 100) * count);
        previousPercentile = percentile;
        for (let i = 0; i < samples; i += 1) options.histogram.observe(late(ns) / 1000);
      }
      periods.push({ max: late(delay.max), p50: late(delay.percentile(50)), p99: late(delay.percentile(99)) });
      if (periods.length > windowSeconds) periods.shift();
    }
    delay.reset();
  }

  const timer = setInterval(flush, 1_000);
  timer.unref();
  return {
    summary() {
      const round = (ms: number) => Math.round(ms * 10) / 10;
      const max = periods.reduce((worst, period) => Math.max(worst, period.max), 0);
      const p50 =
        periods.length === 0
          ? 0
          : (periods.map((period) => period.p50).sort((a, b) => a - b)[Math.floor(periods.length / 2)] ?? 0);
      const p99 = periods.reduce((worst, period) => Math.max(worst, period.p99), 0);
      return { maxMs: round(max), p50Ms: round(p50), p99Ms: round(p99), windowSeconds: periods.length };
    },
    stop() {
      clearInterval(timer);
      delay.disable();
    },
  };
}
