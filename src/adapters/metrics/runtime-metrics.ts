import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The process's event loop and the store it depends on. */
export interface RuntimeMetrics {
  readonly eventLoopDelay: Histogram;
  readonly storeUp: Gauge;
  readonly storeOutages: Counter;
}

export function createRuntimeMetrics(registers: Registry[]): RuntimeMetrics {
  return {
    eventLoopDelay: new Histogram({
      name: 'catalog_bridge_event_loop_delay_seconds',
      help: 'How late the main thread ran a 10 ms timer (perf_hooks.monitorEventLoopDelay): every request waits as long',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    storeUp: new Gauge({
      name: 'catalog_bridge_store_up',
      help: 'Whether the store (STORE_URL) answered its last probe (1) or not (0); feeds are served from memory meanwhile',
      registers,
    }),
    storeOutages: new Counter({
      name: 'catalog_bridge_store_outages_total',
      help: 'Times the store stopped answering (each outage counted once, when it began)',
      registers,
    }),
  };
}
