// The jobs the three processes exchange through the queue, with the shape of
// each payload. The adapter's catalogue validates payloads against these types.
export interface JobPayloads {
  /** A no-op proving the chain-worker consumes work; scheduled every minute. */
  'chain.heartbeat': { source: 'startup' | 'schedule' };
  /** A no-op proving the dispatcher consumes work; scheduled every minute. */
  'dispatch.heartbeat': { source: 'startup' | 'schedule' };
  /** Follows the creation of a workspace (outbox); the dispatcher records it. */
  'workspace.created': { workspaceId: string };
  /** Deletes request signatures that left the replay window. */
  'maintenance.purge-request-signatures': Record<string, never>;
  /** Deletes idempotency records older than 24 hours. */
  'maintenance.purge-idempotency-keys': Record<string, never>;
}

export type JobName = keyof JobPayloads;
