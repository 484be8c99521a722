// What the commitment use cases need from storage (docs/adr/0030-fee-commitment.md).
import type { Adjustment, Commitment, Month } from './commitment.js';

export interface CommitmentRepo {
  /** Serialises changes of the workspace's commitments until the transaction ends. */
  lockWorkspace(workspaceId: string): Promise<void>;
  add(c: Commitment): Promise<void>;
  /** The commitment, locked until the transaction ends; null when there is none. */
  lock(id: string): Promise<Commitment | null>;
  /** Writes its status, end and pauses. */
  save(c: Commitment): Promise<void>;
  /** Every commitment of the workspace, newest start first. */
  ofWorkspace(workspaceId: string): Promise<Commitment[]>;
  /** Ids of the commitments in force at some time of the month (before pauses), oldest first. */
  coveringIds(month: Month): Promise<string[]>;
  /** Records the month's adjustment of its commitment; false when that month already has one (nothing written). */
  addAdjustment(a: Adjustment): Promise<boolean>;
  /** The commitment's adjustment of the month starting at `periodStart`, locked. */
  lockAdjustment(commitmentId: string, periodStart: Date): Promise<Adjustment | null>;
  /** An adjustment by its id, locked. */
  lockAdjustmentById(id: string): Promise<Adjustment | null>;
  saveAdjustment(a: Adjustment): Promise<void>;
  /** The workspace's latest monthly adjustments over all its commitments (which never overlap), newest month first. */
  adjustments(workspaceId: string, limit: number): Promise<Adjustment[]>;
  /** What the workspace owes over all its commitments (USD units). */
  outstandingTotal(workspaceId: string): Promise<bigint>;
  /** Whether the commitment has an adjustment still owed. */
  owes(commitmentId: string): Promise<boolean>;
  /** Auto-debit adjustments with something outstanding, oldest month first: (commitment, month start). */
  recoverable(limit: number): Promise<{ commitmentId: string; periodStart: Date }[]>;
}

/** Operator-set exchange rates (ops fx set). */
export interface FxRateRepo {
  /** The pair's rate in parts per million, or null when never set. */
  rate(pair: 'EURC_USD'): Promise<{ ppm: bigint; setAt: Date } | null>;
  setRate(pair: 'EURC_USD', ppm: bigint, at: Date): Promise<void>;
}
