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
  'maintenance.fold-list-counts': Record<string, never>;
  /** Deletes idempotency records older than 24 hours. */
  'maintenance.purge-idempotency-keys': Record<string, never>;
  /** The first attempt of a webhook delivery (or of a redelivery), enqueued with it (outbox). */
  'webhook.deliver': { deliveryId: string };
  /** One endpoint just had its fifth permanently failed delivery within 7 days: e-mail the workspace contact. */
  'webhook.dead-endpoint-notice': { endpointId: string; failures: number };
  /** Deletes delivered and failed deliveries past 90 days (never PENDING ones). */
  'webhook.purge': Record<string, never>;
  /** Re-creates deliveries of settlement events that never came to exist. */
  'webhook.reconcile': Record<string, never>;
  /** Settles the fee commitments of the closed months not settled yet, then debits what top-ups now cover; scheduled hourly. */
  'commitment.settle': Record<string, never>;
  /** An operator asks the chain-worker to look at one transaction again (ops deposit rescan). */
  'deposit.rescan': { network: string; txid: string };
  /** An operator credits money that arrived where no wallet watches it (ops deposit unexpected credit): the chain-worker reads it again first. */
  'deposit.credit-unexpected': { network: string; id: string };
  /** An operator sends such money back to its sender (ops deposit unexpected return): the chain-worker checks it is on chain first. */
  'deposit.return-unexpected': { network: string; id: string };
  /** The chain-worker records the account xpubs the pool lacks (ADR 0026): at its start, every minute, and when the api finds the pool low or a key missing. */
  'custody.refill-xpubs': { reason: 'startup' | 'schedule' | 'pool-low' | 'missing' };
  /** The dispatcher reconciles the books with the chain of every network with a node (RECONCILE_EVERY_MINUTES). */
  'ledger.reconcile': Record<string, never>;
}

export type JobName = keyof JobPayloads;
