// An outgoing transfer and its lifecycle: the one pipeline through which the
// service moves money on chain (gas top-ups and sweeps, later withdrawals and
// faucet drips; issue 15, ADR 0025). Pure: callers pass the time, the head
// and what the node said. What each state records before the side effect
// that follows it is what makes a crash at any point safe:
//
//   REQUESTED   the row, written in the same transaction as the business
//               change that wants the transfer. Nothing is on chain.
//   SIGNED      the sender's nonce (EVM; allocated in PostgreSQL), the signed
//               bytes and their txid, recorded BEFORE any broadcast. After a
//               crash the same bytes are broadcast again: a node that has
//               them says "already known", one that does not takes them.
//   BROADCAST   a node accepted the bytes at least once.
//   CONFIRMING  one attempt's txid is in a block (which one is recorded).
//   CONFIRMED   it has the network's confirmations.
//   FAILED      reverted in a block, or dropped for good; the owner is told.
//
// A transaction not mined in time is replaced at the SAME nonce with a higher
// fee (EVM): a new attempt, the earlier ones kept, since any of them may still
// be the one mined. So is one no node takes in time (still SIGNED: its fees
// fell below what the nodes ask since it was signed). A transfer never gets a second nonce. On TRON there is no
// nonce: an attempt is dead once the head is past its expiration, and only
// then may a new one be signed.
import type { DerivationPath } from '../custody/derivation.js';
import type { StakeOperation } from '../energy/resources.js';
import type { ChainAsset, Network } from '../money/networks.js';

export type TransferKind =
  | 'GAS_TOPUP'
  | 'SWEEP'
  | 'WITHDRAWAL'
  | 'FAUCET'
  | 'COLD_FORWARD'
  | 'UNEXPECTED_RETURN'
  // TRON's Stake 2.0, from the energy account (issue 34): `to` is the receiver of a delegation (the account itself
  // otherwise), `amount` the sun staked, delegated, taken back, unstaked or withdrawn.
  | 'ENERGY_STAKE'
  | 'ENERGY_DELEGATE'
  | 'ENERGY_RECLAIM'
  | 'ENERGY_UNSTAKE'
  | 'ENERGY_WITHDRAW';

/** The Stake 2.0 kinds: their amount moves between the energy account's balance, its stake and its delegations, and leaves no address of the service. */
export const STAKE_KINDS = ['ENERGY_STAKE', 'ENERGY_DELEGATE', 'ENERGY_RECLAIM', 'ENERGY_UNSTAKE', 'ENERGY_WITHDRAW'] as const satisfies readonly TransferKind[];

/** The Stake 2.0 transaction a transfer of a stake kind is; null for a transfer that moves an asset. */
export function stakeOperationOf(t: Pick<OutgoingTransfer, 'kind' | 'to' | 'amount'>): StakeOperation | null {
  switch (t.kind) {
    case 'ENERGY_STAKE':
      return { kind: 'stake', amount: t.amount };
    case 'ENERGY_DELEGATE':
      return { kind: 'delegate', receiver: t.to, amount: t.amount };
    case 'ENERGY_RECLAIM':
      return { kind: 'reclaim', receiver: t.to, amount: t.amount };
    case 'ENERGY_UNSTAKE':
      return { kind: 'unstake', amount: t.amount };
    case 'ENERGY_WITHDRAW':
      return { kind: 'withdraw_unstaked' };
    default:
      return null;
  }
}
export type TransferStatus = 'REQUESTED' | 'SIGNED' | 'BROADCAST' | 'CONFIRMING' | 'CONFIRMED' | 'FAILED';

/** EVM fee parameters (EIP-1559), in wei. */
export interface EvmFees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** One signed form of the transfer: what was broadcast, or will be. */
export interface TransferAttempt {
  txid: string;
  /** The signed bytes, hex (EVM raw transaction; TRON the signed transaction JSON). */
  raw: string;
  /** EVM: the fees this attempt pays. */
  fees: EvmFees | null;
  /** TRON: the transaction's expiration (ms since epoch), after which it can never be included. */
  expiresAt: number | null;
  signedAt: Date;
  /**
   * EVM: a replacement the node refused (underpriced, short of funds): never
   * broadcast again, nor the base of the next replacement. Kept, and its
   * receipt still looked for: another node may have taken it.
   */
  refusedAt?: Date | null;
}

export interface OutgoingTransfer {
  id: string;
  kind: TransferKind;
  network: Network;
  /** Base units on chain; TRX for a TRON top-up. */
  asset: ChainAsset;
  from: string;
  /** Where the sender's key is (the signer derives it; no key is ever stored). */
  fromPath: DerivationPath;
  to: string;
  /** Base units on chain. */
  amount: bigint;
  /** The business record that wants the transfer (a sweep, a withdrawal), told when it ends. */
  ownerId: string | null;
  /** EVM: the gas limit every attempt carries. */
  gasLimit: bigint | null;
  /**
   * EVM: the highest maxFeePerGas any attempt may pay (a native sweep reserved exactly that much gas).
   * TRON: the most sun it may burn: a contract call's fee_limit (its energy), a TRX transfer's
   * estimated bandwidth and activation (reserved from the sender's balance until it is final).
   */
  feeCap: bigint | null;
  status: TransferStatus;
  /** EVM: the sender's nonce, fixed at the first signing and never changed. */
  nonce: bigint | null;
  attempts: TransferAttempt[];
  /** Its attempt found in a block, where, and whether it reverted there (it fails once that is final). */
  included: { txid: string; blockNumber: bigint; reverted: boolean } | null;
  requestedAt: Date;
  broadcastAt: Date | null;
  confirmedAt: Date | null;
  failure: string | null;
  /** Native base units the included attempt paid for gas (EVM) or energy and bandwidth (TRON). */
  feePaid: bigint | null;
}

export class TransferStateError extends Error {
  constructor(
    readonly transfer: Pick<OutgoingTransfer, 'id' | 'status'>,
    action: string,
  ) {
    super(`transfer ${transfer.id} is ${transfer.status}: cannot ${action}`);
    this.name = 'TransferStateError';
  }
}

export type TransferRequest = Omit<
  OutgoingTransfer,
  'status' | 'nonce' | 'attempts' | 'included' | 'broadcastAt' | 'confirmedAt' | 'failure' | 'feePaid' | 'gasLimit' | 'feeCap' | 'ownerId'
> &
  Partial<Pick<OutgoingTransfer, 'gasLimit' | 'feeCap' | 'ownerId'>>;

export function requestTransfer(t: TransferRequest): OutgoingTransfer {
  if (t.amount <= 0n) throw new Error('a transfer moves a positive amount');
  return {
    gasLimit: null,
    feeCap: null,
    ownerId: null,
    ...t,
    status: 'REQUESTED',
    nonce: null,
    attempts: [],
    included: null,
    broadcastAt: null,
    confirmedAt: null,
    failure: null,
    feePaid: null,
  };
}

/** Final: nothing more happens to it on chain. */
export const isFinal = (t: Pick<OutgoingTransfer, 'status'>): boolean => t.status === 'CONFIRMED' || t.status === 'FAILED';

const last = (t: OutgoingTransfer): TransferAttempt | undefined => t.attempts[t.attempts.length - 1];

/** The latest attempt no node refused: the one broadcast (again), and the base of a replacement. */
export function latestLive(t: Pick<OutgoingTransfer, 'attempts'>): TransferAttempt | undefined {
  for (let i = t.attempts.length - 1; i >= 0; i--) if (!t.attempts[i]!.refusedAt) return t.attempts[i];
  return undefined;
}

/**
 * EVM: the node refused the replacement `txid` when it was first broadcast:
 * it is marked and the transfer is back to BROADCAST with its earlier
 * attempts (refused bytes never become the attempt that goes out).
 */
export function replacementRefused(t: OutgoingTransfer, txid: string, at: Date): OutgoingTransfer {
  const i = t.attempts.findIndex((a) => a.txid === txid);
  if (t.status !== 'SIGNED' || i < 1 || i !== t.attempts.length - 1 || t.attempts[i]!.refusedAt) throw new TransferStateError(t, 'refuse a replacement');
  const attempts = t.attempts.map((a, j) => (j === i ? { ...a, refusedAt: at } : a));
  // Back to what it was before the replacement: BROADCAST once a node took an earlier attempt, else SIGNED.
  return { ...t, status: t.broadcastAt ? 'BROADCAST' : 'SIGNED', attempts };
}

/**
 * The first signing: the nonce (EVM) and the signed bytes, recorded before
 * anything is broadcast. Only a REQUESTED transfer is signed this way; a
 * replacement goes through `replaced`.
 */
export function signed(t: OutgoingTransfer, attempt: TransferAttempt, nonce: bigint | null): OutgoingTransfer {
  if (t.status !== 'REQUESTED') throw new TransferStateError(t, 'sign');
  return { ...t, status: 'SIGNED', nonce, attempts: [attempt] };
}

/** A node accepted the latest attempt (or already knew it). */
export function broadcast(t: OutgoingTransfer, at: Date): OutgoingTransfer {
  if (t.status !== 'SIGNED' && t.status !== 'BROADCAST') throw new TransferStateError(t, 'broadcast');
  return { ...t, status: 'BROADCAST', broadcastAt: t.broadcastAt ?? at };
}

/** Fees of a replacement: at least `bumpPercent` (nodes require 10) above the previous, and at least what the network asks now. */
export function replacementFees(previous: EvmFees, now: EvmFees, bumpPercent = 15): EvmFees {
  const bump = (v: bigint) => v + (v * BigInt(bumpPercent) + 99n) / 100n;
  const max = (a: bigint, b: bigint) => (a > b ? a : b);
  const maxPriorityFeePerGas = max(bump(previous.maxPriorityFeePerGas), now.maxPriorityFeePerGas);
  const maxFeePerGas = max(max(bump(previous.maxFeePerGas), now.maxFeePerGas), maxPriorityFeePerGas);
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/**
 * EVM: the most a replacement pays, field by field: what replacing the live attempt needs, or twice what the
 * network asks now, whichever is higher. Bumping from refused attempts (highestFees) never goes past it, so a
 * node that keeps refusing (a sender short of funds) cannot push the fees up step after step; at the ceiling the
 * replacement would be bytes signed before, and the live attempt goes on being broadcast instead.
 */
export function replacementCeiling(live: EvmFees, quote: EvmFees): EvmFees {
  const needed = replacementFees(live, quote);
  const max = (a: bigint, b: bigint) => (a > b ? a : b);
  return { maxFeePerGas: max(needed.maxFeePerGas, 2n * quote.maxFeePerGas), maxPriorityFeePerGas: max(needed.maxPriorityFeePerGas, 2n * quote.maxPriorityFeePerGas) };
}

/** `fees` held under `ceiling`, field by field (the tip never above the fee cap). */
export function withinCeiling(fees: EvmFees, ceiling: EvmFees): EvmFees {
  const min = (a: bigint, b: bigint) => (a < b ? a : b);
  const maxFeePerGas = min(fees.maxFeePerGas, ceiling.maxFeePerGas);
  return { maxFeePerGas, maxPriorityFeePerGas: min(min(fees.maxPriorityFeePerGas, ceiling.maxPriorityFeePerGas), maxFeePerGas) };
}

/** EVM: `fees` under the transfer's fee cap (null: none), the tip never above it. */
export function underFeeCap(fees: EvmFees, cap: bigint | null): EvmFees {
  return cap === null ? fees : withinCeiling(fees, { maxFeePerGas: cap, maxPriorityFeePerGas: cap });
}

/**
 * EVM: what a replacement of `t` pays when the network asks `quote`: 15 % over the highest fees of every attempt (a
 * refused one included), at least the quote, at most the ceiling over the live attempt (replacementCeiling), under
 * the transfer's fee cap. Null when no attempt is live with fees. Whether nodes take it over the live attempt
 * (+10 % on both fields) is the caller's to check (isReplacementBump).
 */
export function replacementOffer(t: Pick<OutgoingTransfer, 'attempts' | 'feeCap'>, quote: EvmFees): EvmFees | null {
  const live = latestLive(t)?.fees;
  const base = highestFees(t);
  if (!live || !base) return null;
  return underFeeCap(withinCeiling(replacementFees(base, quote), replacementCeiling(live, quote)), t.feeCap);
}

/**
 * EVM: the highest fees any attempt of the transfer carries, refused ones included, field by field: the base a
 * replacement bumps from. A replacement priced only from the live attempt can come out as the very bytes a node
 * refused before (signatures are deterministic: same nonce, same fees, same transaction), which can never be
 * recorded again nor taken by that node.
 */
export function highestFees(t: Pick<OutgoingTransfer, 'attempts'>): EvmFees | null {
  let highest: EvmFees | null = null;
  for (const { fees } of t.attempts) {
    if (!fees) continue;
    highest = highest
      ? {
          maxFeePerGas: fees.maxFeePerGas > highest.maxFeePerGas ? fees.maxFeePerGas : highest.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas > highest.maxPriorityFeePerGas ? fees.maxPriorityFeePerGas : highest.maxPriorityFeePerGas,
        }
      : fees;
  }
  return highest;
}

/** Percent above the replaced attempt that nodes require on both fee fields (geth and BSC's txpool, reth's DEFAULT_PRICE_BUMP). */
export const MIN_REPLACEMENT_BUMP_PERCENT = 10n;

/** Whether `next` pays at least the nodes' +10 % over `previous` on both fields (else it would be refused as underpriced). */
export function isReplacementBump(previous: EvmFees, next: EvmFees): boolean {
  const enough = (before: bigint, after: bigint) => after * 100n >= before * (100n + MIN_REPLACEMENT_BUMP_PERCENT) && after > before;
  return enough(previous.maxFeePerGas, next.maxFeePerGas) && enough(previous.maxPriorityFeePerGas, next.maxPriorityFeePerGas);
}

/**
 * EVM: not in a block `afterMs` after its latest attempt was signed (or a replacement of it refused), whether a
 * node took it (BROADCAST) or none would (SIGNED: its fees fell below what the nodes ask since it was signed).
 */
export function needsReplacement(t: OutgoingTransfer, now: Date, afterMs: number): boolean {
  const a = latestLive(t);
  const since = Math.max(a?.signedAt.getTime() ?? 0, last(t)?.refusedAt?.getTime() ?? 0);
  return (t.status === 'BROADCAST' || t.status === 'SIGNED') && t.nonce !== null && a !== undefined && a.fees !== null && now.getTime() - since >= afterMs;
}

/** EVM: a new attempt at the same nonce with higher fees; the earlier attempts stay, any of them may be mined. */
export function replaced(t: OutgoingTransfer, attempt: TransferAttempt): OutgoingTransfer {
  const previous = latestLive(t);
  if ((t.status !== 'BROADCAST' && t.status !== 'SIGNED') || t.nonce === null || !previous?.fees || !attempt.fees) throw new TransferStateError(t, 'replace');
  if (!isReplacementBump(previous.fees, attempt.fees)) {
    throw new Error(`transfer ${t.id}: a replacement must pay at least 10 % more on both fee fields than the attempt it replaces`);
  }
  return { ...t, status: 'SIGNED', attempts: [...t.attempts, attempt] };
}

/** TRON: every attempt has expired by `headTime` (the head block's time), so none can ever be included. */
export function allAttemptsExpired(t: OutgoingTransfer, headTime: number): boolean {
  return t.attempts.length > 0 && t.attempts.every((a) => a.expiresAt !== null && a.expiresAt < headTime);
}

/** TRON: a fresh attempt once every earlier one is dead (no nonce to keep). */
export function resigned(t: OutgoingTransfer, attempt: TransferAttempt, headTime: number): OutgoingTransfer {
  if ((t.status !== 'BROADCAST' && t.status !== 'SIGNED') || t.nonce !== null || !allAttemptsExpired(t, headTime)) throw new TransferStateError(t, 're-sign');
  return { ...t, status: 'SIGNED', attempts: [...t.attempts, attempt] };
}

/** One of its attempts is in a block, having paid `feePaid` (native base units); a reverted one fails at its confirmations. */
export function includedIn(
  t: OutgoingTransfer,
  txid: string,
  blockNumber: bigint,
  feePaid: bigint | null = null,
  reverted = false,
): OutgoingTransfer {
  if (t.status !== 'SIGNED' && t.status !== 'BROADCAST' && t.status !== 'CONFIRMING') throw new TransferStateError(t, 'be included');
  if (!t.attempts.some((a) => a.txid === txid)) throw new Error(`transfer ${t.id}: ${txid} is not one of its attempts`);
  return { ...t, status: 'CONFIRMING', included: { txid, blockNumber, reverted }, feePaid: feePaid ?? t.feePaid };
}

/** Its block was reorged out and no attempt is in a block now: broadcast again (the same bytes). */
export function unincluded(t: OutgoingTransfer): OutgoingTransfer {
  if (t.status !== 'CONFIRMING') throw new TransferStateError(t, 'leave its block');
  return { ...t, status: 'BROADCAST', included: null, feePaid: null };
}

/** Confirmations at `tip` of the included attempt (its own block is the first). */
export function transferConfirmations(t: OutgoingTransfer, tip: bigint): number {
  if (!t.included || tip < t.included.blockNumber) return 0;
  return Number(tip - t.included.blockNumber + 1n);
}

export function confirmed(t: OutgoingTransfer, tip: bigint, required: number, at: Date): OutgoingTransfer {
  if (t.status !== 'CONFIRMING') throw new TransferStateError(t, 'confirm');
  if (transferConfirmations(t, tip) < required) return t;
  if (t.included?.reverted) return { ...t, status: 'FAILED', failure: 'reverted', confirmedAt: at };
  return { ...t, status: 'CONFIRMED', confirmedAt: at };
}

/** Reverted in a block, or dropped for good (EVM: the sender's nonce moved past it with none of its attempts mined). */
export function failed(t: OutgoingTransfer, reason: string): OutgoingTransfer {
  if (t.status === 'CONFIRMED' || t.status === 'FAILED') throw new TransferStateError(t, 'fail');
  return { ...t, status: 'FAILED', failure: reason };
}

/** EVM: the sender's confirmed nonce passed ours and none of our attempts has a receipt: another transaction took the nonce. */
export function nonceTakenByAnother(t: OutgoingTransfer, confirmedNonce: bigint, anyAttemptMined: boolean): boolean {
  return t.nonce !== null && confirmedNonce > t.nonce && !anyAttemptMined && (t.status === 'BROADCAST' || t.status === 'SIGNED');
}
