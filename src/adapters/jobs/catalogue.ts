// The one catalogue of jobs: every name the processes exchange and the zod
// schema of its payload. A payload is validated when enqueued and when consumed.
import { z } from 'zod';
import type { JobName, JobPayloads } from '../../domain/jobs/job-names.js';

export const JOB_CATALOGUE: { [N in JobName]: z.ZodType<JobPayloads[N]> } = {
  'chain.heartbeat': z.object({ source: z.enum(['startup', 'schedule']) }),
  'dispatch.heartbeat': z.object({ source: z.enum(['startup', 'schedule']) }),
  'workspace.created': z.object({ workspaceId: z.uuid() }),
  'maintenance.purge-request-signatures': z.object({}).strict() as z.ZodType<Record<string, never>>,
  'maintenance.fold-list-counts': z.object({}).strict() as z.ZodType<Record<string, never>>,
  'maintenance.purge-idempotency-keys': z.object({}).strict() as z.ZodType<Record<string, never>>,
  'webhook.deliver': z.object({ deliveryId: z.uuid() }),
  'webhook.dead-endpoint-notice': z.object({ endpointId: z.uuid(), failures: z.number().int().min(1) }),
  'webhook.purge': z.object({}).strict() as z.ZodType<Record<string, never>>,
  'webhook.reconcile': z.object({}).strict() as z.ZodType<Record<string, never>>,
  'commitment.settle': z.object({}).strict() as z.ZodType<Record<string, never>>,
  'deposit.rescan': z.object({ network: z.string().min(1).max(32), txid: z.string().min(1).max(100) }),
  'deposit.credit-unexpected': z.object({ network: z.string().min(1).max(32), id: z.uuid() }),
  'deposit.return-unexpected': z.object({ network: z.string().min(1).max(32), id: z.uuid() }),
  'custody.refill-xpubs': z.object({ reason: z.enum(['startup', 'schedule', 'pool-low', 'missing']) }),
  'ledger.reconcile': z.object({}).strict() as z.ZodType<Record<string, never>>,
};

export const JOB_NAMES = Object.keys(JOB_CATALOGUE) as JobName[];

export function parseJobPayload<N extends JobName>(name: N, data: unknown): JobPayloads[N] {
  return JOB_CATALOGUE[name].parse(data);
}
