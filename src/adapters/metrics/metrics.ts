// prom-client registries: default process metrics for every process, request
// durations for the api, jobs processed and failed for the workers.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  jobsProcessed: Counter<'name'>;
  jobsFailed: Counter<'name'>;
}

export function createMetrics(processName: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ process: processName });
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Duration of HTTP requests by route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    jobsProcessed: new Counter({
      name: 'jobs_processed_total',
      help: 'Jobs processed successfully, by job name',
      labelNames: ['name'],
      registers: [registry],
    }),
    jobsFailed: new Counter({
      name: 'jobs_failed_total',
      help: 'Jobs that failed, by job name',
      labelNames: ['name'],
      registers: [registry],
    }),
  };
}
