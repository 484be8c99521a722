// prom-client registries: default process metrics for every process, request
// durations for the api, jobs processed and failed for the workers.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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

export interface WebhookMetrics {
  attempts: Counter<'outcome'>;
  attemptSeconds: Histogram<'outcome'>;
  queuedSeconds: Histogram;
}

/**
 * The dispatcher's webhook metrics: attempts by outcome (delivered, retry,
 * failed for good, lost claim), how long attempts take, how long claimed
 * deliveries wait for a slot, and per endpoint the age of its oldest PENDING
 * delivery, read from the database at each scrape (what operators alert on).
 */
export function createWebhookMetrics(
  registry: Registry,
  oldestPending: () => Promise<{ endpointId: string; seconds: number }[]>,
): WebhookMetrics {
  new Gauge({
    name: 'webhook_oldest_pending_seconds',
    help: 'Age of the oldest PENDING delivery of each endpoint that has one',
    labelNames: ['endpoint'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await oldestPending()) this.set({ endpoint: row.endpointId }, row.seconds);
    },
  });
  return {
    attempts: new Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome: delivered, retry (will be tried again), failed (no attempts left), lost (claim ran out)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    attemptSeconds: new Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Duration of webhook delivery attempts, by outcome',
      labelNames: ['outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 12],
      registers: [registry],
    }),
    queuedSeconds: new Histogram({
      name: 'webhook_claim_wait_seconds',
      help: 'Time a claimed delivery waited for a free slot before its attempt started',
      buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60],
      registers: [registry],
    }),
  };
}

export interface ScannerMetrics {
  head: Gauge<'network'>;
  cursor: Gauge<'network'>;
  lag: Gauge<'network'>;
  nodeErrors: Counter<'network' | 'kind'>;
  detected: Counter<'network'>;
  reorgs: Counter<'network'>;
  stepSeconds: Histogram<'network'>;
}

/**
 * The chain-worker's scanner metrics: per network the node's head, the next
 * block to read and the lag between them (what operators alert on), node
 * errors by kind, deposits detected, reorgs, and deposits by status and the
 * unexpected arrivals waiting for the operator, read from the database at each scrape.
 */
export function createScannerMetrics(
  registry: Registry,
  depositsByStatus: () => Promise<{ network: string; status: string; count: number }[]>,
  unexpectedListed: () => Promise<{ network: string; asset: string; count: number }[]>,
): ScannerMetrics {
  new Gauge({
    name: 'deposits_unexpected',
    help: 'Money that arrived at a deposit address in another asset than its wallet\'s, waiting for the operator (ops deposit unexpected list)',
    labelNames: ['network', 'asset'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await unexpectedListed()) this.set({ network: row.network, asset: row.asset }, row.count);
    },
  });
  new Gauge({
    name: 'deposits',
    help: 'Deposits by network and status',
    labelNames: ['network', 'status'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await depositsByStatus()) this.set({ network: row.network, status: row.status }, row.count);
    },
  });
  const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames: ['network'], registers: [registry] });
  return {
    head: gauge('chain_head_block', 'The latest block number the node serves'),
    cursor: gauge('chain_cursor_block', 'The next block the scanner reads'),
    lag: gauge('cursor_lag_blocks', 'Blocks between the node head and the scanner cursor (0 when caught up)'),
    nodeErrors: new Counter({
      name: 'chain_node_errors_total',
      help: 'Node failures after retries, by kind: timeout, rate_limited, server_error, unreachable, bad_response, other',
      labelNames: ['network', 'kind'],
      registers: [registry],
    }),
    detected: new Counter({ name: 'deposits_detected_total', help: 'Deposits recorded as DETECTED', labelNames: ['network'], registers: [registry] }),
    reorgs: new Counter({ name: 'chain_reorgs_total', help: 'Reorgs the scanner walked back', labelNames: ['network'], registers: [registry] }),
    stepSeconds: new Histogram({
      name: 'chain_scan_step_seconds',
      help: 'Duration of scanner steps that read blocks',
      labelNames: ['network'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}

/** Metrics of the outgoing-transfer pipeline and the sweeps (docs/operations.md#sweeps-and-the-gas-tank). */
export interface SendingMetrics {
  requestToBroadcast: Histogram<'network' | 'kind'>;
  requestToConfirmed: Histogram<'network' | 'kind'>;
  gasSpent: Counter<'network'>;
  gasTankBalance: Gauge<'network'>;
  gasTankLow: Gauge<'network'>;
  treasuryShort: Gauge<'network'>;
  /** TRON energy (ADR 0035). */
  energyFallbacks: Counter<'network' | 'reason'>;
  energyReclaimed: Counter<'network'>;
  energyLent: Counter<'network'>;
  energyAvailable: Gauge<'network'>;
  energyLoansOpen: Gauge<'network'>;
  energyTakeBacksFailing: Gauge<'network'>;
  sweepTrxBurnt: Histogram<'network'>;
}

export function createSendingMetrics(
  registry: Registry,
  transfersByState: () => Promise<{ network: string; kind: string; status: string; count: number }[]>,
): SendingMetrics {
  new Gauge({
    name: 'outgoing_transfers',
    help: 'Outgoing transfers (gas top-ups, sweeps, withdrawals, faucet drips) by network, kind and state',
    labelNames: ['network', 'kind', 'status'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await transfersByState()) this.set({ network: r.network, kind: r.kind, status: r.status }, r.count);
    },
  });
  const seconds = (name: string, help: string) =>
    new Histogram({ name, help, labelNames: ['network', 'kind'], buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900], registers: [registry] });
  return {
    requestToBroadcast: seconds('transfer_request_to_broadcast_seconds', 'Time from a transfer being requested to a node accepting it'),
    requestToConfirmed: seconds('transfer_request_to_confirmed_seconds', 'Time from a transfer being requested to its required confirmations'),
    gasSpent: new Counter({
      name: 'gas_spent_total',
      help: 'Native currency (ETH, BNB, TRX in whole units) the service paid for gas and energy of its transfers',
      labelNames: ['network'],
      registers: [registry],
    }),
    gasTankBalance: new Gauge({ name: 'gas_tank_balance', help: "The gas tank's native balance in whole units", labelNames: ['network'], registers: [registry] }),
    gasTankLow: new Gauge({
      name: 'gas_tank_low',
      help: '1 while the gas tank cannot pay for a top-up a waiting sweep needs (sweeps wait; nothing credited is touched)',
      labelNames: ['network'],
      registers: [registry],
    }),
    energyFallbacks: new Counter({
      name: 'tron_energy_fallbacks_total',
      help: 'TRON sweeps, withdrawals and faucet drips that burnt TRX for their energy though the source is the stake (reason: not_enough_stake, waited_too_long, energy_account_low)',
      labelNames: ['network', 'reason'],
      registers: [registry],
    }),
    energyLent: new Counter({ name: 'tron_energy_delegations_total', help: 'Energy loans confirmed on chain (stake delegated to an address that sends)', labelNames: ['network'], registers: [registry] }),
    energyReclaimed: new Counter({ name: 'tron_energy_reclaimed_total', help: 'Energy loans taken back on chain', labelNames: ['network'], registers: [registry] }),
    energyAvailable: new Gauge({ name: 'tron_energy_available', help: "Energy the energy account's stake can use or lend now (units)", labelNames: ['network'], registers: [registry] }),
    energyLoansOpen: new Gauge({ name: 'tron_energy_loans_open', help: 'Energy loans not taken back yet (asked, lent, or being taken back)', labelNames: ['network'], registers: [registry] }),
    energyTakeBacksFailing: new Gauge({
      name: 'tron_energy_takebacks_failing',
      help: 'Energy loans whose take-back failed at least once, or was asked more than 10 minutes ago, and is not confirmed yet',
      labelNames: ['network'],
      registers: [registry],
    }),
    sweepTrxBurnt: new Histogram({
      name: 'tron_sweep_trx_burnt',
      help: 'TRX a confirmed TRON sweep transaction burnt (energy and bandwidth), per sweep',
      labelNames: ['network'],
      buckets: [0, 0.5, 1, 2, 5, 10, 15, 20, 30, 50],
      registers: [registry],
    }),
    treasuryShort: new Gauge({
      name: 'treasury_short',
      help: "1 while the treasury cannot pay the next withdrawal (its asset or the gas): withdrawals wait, none fails",
      labelNames: ['network'],
      registers: [registry],
    }),
  };
}

export interface ReconcileMetrics {
  difference: Gauge<'network' | 'asset'>;
  held: Gauge<'network'>;
}

/**
 * The reconciliation with the chain (docs/operations.md#reconciliation-with-the-chain):
 * the chain's balance minus what the books say, per network and asset at the last run
 * (negative: the chain holds less), and whether the network's payouts are held.
 */
export function createReconcileMetrics(registry: Registry): ReconcileMetrics {
  return {
    difference: new Gauge({
      name: 'chain_reconciliation_difference',
      help: 'Chain balance minus the books at the last reconciliation, base units (negative: the chain holds less than the books)',
      labelNames: ['network', 'asset'],
      registers: [registry],
    }),
    held: new Gauge({ name: 'payouts_held', help: 'Payouts of the network held after a difference with the chain (1)', labelNames: ['network'], registers: [registry] }),
  };
}

export interface CustodyMetrics {
  coldAddressChangePending: Gauge<'network' | 'asset'>;
  hotFloat: Gauge<'network' | 'asset'>;
  forwards: Counter<'network' | 'asset'>;
  refillNeeded: Gauge<'network' | 'asset'>;
  refills: Counter<'network' | 'asset'>;
  coldBooked: Gauge<'network' | 'asset'>;
  coldOnChain: Gauge<'network' | 'asset'>;
}

/** The treasury's custody discipline (docs/operations.md#custody): a cold address change waiting for its cooling-off (1). */
export function createCustodyMetrics(registry: Registry): CustodyMetrics {
  return {
    coldAddressChangePending: new Gauge({
      name: 'treasury_cold_address_change_pending',
      help: 'A cold address change of the treasury policy is waiting for its cooling-off (1): check who asked for it, cancel it if no one did',
      labelNames: ['network', 'asset'],
      registers: [registry],
    }),
    hotFloat: new Gauge({
      name: 'treasury_hot_float',
      help: "What the hot treasury holds beyond its transfers on their way, whole units of the asset (networks and assets with a treasury policy)",
      labelNames: ['network', 'asset'],
      registers: [registry],
    }),
    forwards: new Counter({ name: 'treasury_cold_forwards_total', help: 'Surpluses of the hot treasury sent to its cold address', labelNames: ['network', 'asset'], registers: [registry] }),
    refillNeeded: new Gauge({
      name: 'treasury_refill_needed',
      help: 'The hot treasury is below its floor, or a withdrawal waits for funds (1): a person must send a refill from the cold address (ops treasury status)',
      labelNames: ['network', 'asset'],
      registers: [registry],
    }),
    refills: new Counter({ name: 'treasury_cold_refills_total', help: 'Refills from the cold address booked into the hot treasury', labelNames: ['network', 'asset'], registers: [registry] }),
    coldBooked: new Gauge({
      name: 'treasury_cold_booked',
      help: 'What the books hold in cold storage (forwarded and arrived, less refilled), whole units of the asset',
      labelNames: ['network', 'asset'],
      registers: [registry],
    }),
    coldOnChain: new Gauge({
      name: 'treasury_cold_on_chain',
      help: 'The cold address balance read on the node, whole units of the asset (below treasury_cold_booked: money gone from cold storage; ops treasury reconcile)',
      labelNames: ['network', 'asset'],
      registers: [registry],
    }),
  };
}
