// The events the service sends to webhook endpoints (docs/api.md#webhooks).
export const EVENT_NAMES = [
  'DEPOSIT_DETECTED',
  'DEPOSIT_CONFIRMED',
  'DEPOSIT_SWEPT',
  'DEPOSIT_FLAGGED',
  'DEPOSIT_REJECTED',
  'WITHDRAWAL_PROCESSING',
  'WITHDRAWAL_CONFIRMED',
  'WITHDRAWAL_FAILED',
  'WITHDRAWAL_CANCELLED',
  'WITHDRAWAL_HELD',
  'WITHDRAWAL_PENDING_APPROVAL',
  'BENEFICIARY_ADDED',
  'BENEFICIARY_REMOVED',
  'WITHDRAWAL_POLICY_CHANGED',
  'COMMITMENT_ADJUSTMENT_EMITTED',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/**
 * Events that settle money. A scheduled reconciliation re-creates their
 * delivery (with a new delivery id) for an endpoint that wants them and never
 * got one.
 */
export const SETTLEMENT_EVENTS: readonly EventName[] = ['DEPOSIT_SWEPT', 'WITHDRAWAL_CONFIRMED', 'COMMITMENT_ADJUSTMENT_EMITTED'];

/** The withdrawal security settings as events carry them (docs/operations.md#withdrawal-security). */
export interface PolicyView {
  allowlist: string[];
  cooling_off_hours: number | null;
  per_tx_limit: string | null;
  daily_limit: string | null;
  approval_above: string | null;
  approval_quorum: number;
}

/**
 * The `data` of each event, as it goes on the wire. Owner events carry the
 * changed setting; the deposit, withdrawal and commitment events are produced
 * by the issues that build those resources, and their schemas are in the
 * OpenAPI document's `webhooks` section already.
 */
export interface EventPayloads {
  WITHDRAWAL_POLICY_CHANGED: {
    workspace_id: string;
    network: 'MAINNET';
    changed: (keyof PolicyView)[];
    policy: PolicyView;
    changed_at: string;
  };
  BENEFICIARY_ADDED: {
    workspace_id: string;
    chain: string;
    address: string;
    added_at: string;
    cooling_off_ends_at: string | null;
  };
  BENEFICIARY_REMOVED: {
    workspace_id: string;
    chain: string;
    address: string;
    removed_at: string;
  };
}

/** Payload type of an event: precise for the events produced so far. */
export type EventData<E extends EventName> = E extends keyof EventPayloads ? EventPayloads[E] : Record<string, unknown>;
