import { Counter, Histogram, type Registry } from 'prom-client';

/** Scheduled jobs and the POS syncs they run. */
export interface JobMetrics {
  readonly jobRuns: Counter<'job' | 'outcome'>;
  readonly jobDuration: Histogram<'job'>;
  readonly posErrors: Counter<'family' | 'operation'>;
}

export function createJobMetrics(registers: Registry[]): JobMetrics {
  return {
    jobRuns: new Counter({
      name: 'catalog_bridge_job_runs_total',
      help: 'Runs of scheduled jobs by outcome (ok, failed, refused)',
      labelNames: ['job', 'outcome'],
      registers,
    }),
    jobDuration: new Histogram({
      name: 'catalog_bridge_job_duration_seconds',
      help: 'Duration of job runs',
      labelNames: ['job'],
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
      registers,
    }),
    posErrors: new Counter({
      name: 'catalog_bridge_pos_errors_total',
      help: 'Sync runs that failed, by error code (POS_UNAVAILABLE, POS_REJECTED, POS_RESPONSE_INVALID, PRICE_LIST_INVALID, ...)',
      labelNames: ['family', 'operation'],
      registers,
    }),
  };
}
