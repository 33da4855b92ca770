/**
 * What a service does with a metric: set a gauge, count, observe. The app passes in the Prometheus series
 * (`adapters/metrics/`), which have these methods; services never see the registry or prom-client.
 */

export interface GaugePort {
  set(value: number): void;
}

export interface CounterPort {
  inc(value?: number): void;
}

/** Label values by label name (prom-client's `LabelValues`). */
export type Labels<L extends string> = Partial<Record<L, string>>;

export interface LabelledGaugePort<L extends string> {
  set(labels: Labels<L>, value: number): void;
}

export interface LabelledCounterPort<L extends string> {
  inc(labels: Labels<L>, value?: number): void;
}

export interface LabelledHistogramPort<L extends string> {
  observe(labels: Labels<L>, value: number): void;
}
