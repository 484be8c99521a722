// The reconciliation of the books with the chain (issue 30,
// docs/operations.md#reconciliation-with-the-chain). `ops ledger check` proves
// the books balance with themselves; this proves they agree with the chain:
// per network and asset, what the ledger says the service holds against what
// the chain says the service's addresses hold at one block. Pure: the caller
// reads the ledger, the records and the chain.
//
// What the chain should show at block B, from the books (chain base units):
//   custody                 −(TREASURY + FAUCET) of the service: what the ledger says is held
//   + booked out, not mined  withdrawals consumed at broadcast whose transaction is not in a block ≤ B yet
//   − credited, not at B     credited deposits whose block is after B
//   + seen, not credited     deposits DETECTED in a block ≤ B (on chain, not in the books yet)
//   − gas not booked         fees that transfers in a block ≤ B paid, booked only when they end
// A deficit (the chain holds less) is money gone that the books still owe:
// a payout both sent and refunded, a credit whose transfer is not on chain.
// A surplus is money that arrived without a booking (operator funding, dust
// below the API precision, a transfer the scanner has not read yet): reported,
// never booked. Totals can net a deficit against a surplus elsewhere, so each
// deposit address is also checked on its own: it must hold at least its
// deposits not swept (else an `address` deficit), and a recent wallet with
// no deposit recorded that holds its asset is `unbooked` (a missed deposit?).
import type { ChainAsset, Network } from '../money/networks.js';

export interface ReconciliationBasis {
  asset: ChainAsset;
  custody: bigint;
  bookedOutNotMined: bigint;
  creditedAfterBlock: bigint;
  detectedNotCredited: bigint;
  gasNotBooked: bigint;
}

/** What the service's addresses should hold on chain at the run's block, by the books. */
export const expectedOnChain = (b: ReconciliationBasis): bigint =>
  b.custody + b.bookedOutNotMined - b.creditedAfterBlock + b.detectedNotCredited - b.gasNotBooked;

/** A transfer or deposit that explains (part of) a difference. */
export interface InvolvedItem {
  /**
   * withdrawal, transfer, deposit: proved to disagree with the chain (hold at once); address: a deposit
   * address holding less than its deposits not swept (a deficit); unbooked: a wallet holding its asset
   * with no deposit recorded (reported only).
   */
  kind: 'withdrawal' | 'transfer' | 'deposit' | 'address' | 'unbooked';
  id: string;
  /** The transfer of a withdrawal, when the item is a withdrawal. */
  transferId?: string;
  txid: string | null;
  asset: ChainAsset;
  /** Chain base units. */
  amount: bigint;
  why: string;
  /** An operator looked at it already (ops payouts resume): reported, holds nothing. */
  acknowledged?: boolean;
}

export interface AssetReconciliation {
  network: Network;
  asset: ChainAsset;
  block: bigint;
  expected: bigint;
  onChain: bigint;
  /** onChain − expected: negative is a deficit. */
  difference: bigint;
  verdict: 'ok' | 'surplus' | 'deficit';
  /** A deficit an operator acknowledged at the last payouts resume (no deeper, nothing new at an address): it holds nothing. */
  acknowledged?: boolean;
}

/** `shortAddresses`: deposit addresses holding less than their deposits not swept (a deficit whatever the totals say). */
export function reconcileAsset(network: Network, block: bigint, basis: ReconciliationBasis, onChain: bigint, shortAddresses = 0): AssetReconciliation {
  const expected = expectedOnChain(basis);
  const difference = onChain - expected;
  const verdict = difference < 0n || shortAddresses > 0 ? 'deficit' : difference > 0n ? 'surplus' : 'ok';
  return { network, asset: basis.asset, block, expected, onChain, difference, verdict };
}

/** A deposit address's own check: what it holds on chain against its deposits not swept. */
export function checkAddress(asset: ChainAsset, address: string, expected: bigint, onChain: bigint): InvolvedItem | null {
  if (onChain >= expected) return null;
  return { kind: 'address', id: address, txid: null, asset, amount: expected - onChain, why: `holds ${onChain}, less than its deposits not swept (${expected})` };
}

/** A recent wallet with no deposit recorded that holds its asset: a transfer the scanner missed, or dust. */
export function unbooked(asset: ChainAsset, address: string, onChain: bigint): InvolvedItem | null {
  if (onChain === 0n) return null;
  return { kind: 'unbooked', id: address, txid: null, asset, amount: onChain, why: `holds ${onChain} with no deposit recorded: a transfer the scanner missed? (ops deposit rescan --chain ... --txid ...)` };
}

const PROVED: ReadonlySet<InvolvedItem['kind']> = new Set(['withdrawal', 'transfer', 'deposit']);

/** Whether the asset's deficit is what an operator acknowledged: no deeper, and no address short that was not. */
export function deficitAcknowledged(r: AssetReconciliation, involved: InvolvedItem[], acks: ReadonlyMap<ChainAsset, Acknowledged>): boolean {
  const ack = acks.get(r.asset);
  if (r.verdict !== 'deficit' || !ack) return false;
  const freshShort = involved.some((i) => i.kind === 'address' && i.asset === r.asset && !isAcknowledged(i, acks));
  return r.difference >= ack.difference && !freshShort;
}

/** What an operator looked at when letting the network's payouts go on (ops payouts resume), per asset. */
export interface Acknowledged {
  /** The difference then (negative: a deficit, zero when there was none). */
  difference: bigint;
  /** The involved items then, as `kind:id`. */
  items: ReadonlySet<string>;
}

export const itemKey = (i: Pick<InvolvedItem, 'kind' | 'id'>): string => `${i.kind}:${i.id}`;

/** Whether an item was looked at by an operator already: it no longer holds the payouts. */
export const isAcknowledged = (i: InvolvedItem, acks: ReadonlyMap<ChainAsset, Acknowledged>): boolean => acks.get(i.asset)?.items.has(itemKey(i)) ?? false;

/**
 * Whether the network's payouts wait for an operator: a transfer proved both
 * paid on chain and failed in the books holds at once; a deficit holds once
 * the previous run of the same asset showed one too (a single run may have
 * raced a transfer between its reads). What an operator acknowledged when
 * resuming does not hold them again: its items, and a deficit no deeper than
 * the one then.
 */
export function shouldHold(
  current: AssetReconciliation[],
  previousDeficits: ReadonlySet<ChainAsset>,
  all: InvolvedItem[],
  acks: ReadonlyMap<ChainAsset, Acknowledged> = new Map(),
): string | null {
  const fresh = all.filter((i) => !isAcknowledged(i, acks));
  const involved = fresh.filter((i) => PROVED.has(i.kind));
  if (involved.length > 0) return `${involved.length} transfer(s) or deposit(s) disagree with the chain: ${involved.map((i) => `${i.kind} ${i.id}`).join(', ')}`;
  const short = (r: AssetReconciliation) => fresh.filter((i) => i.kind === 'address' && i.asset === r.asset);
  const deficits = current.filter(
    (r) => r.verdict === 'deficit' && previousDeficits.has(r.asset) && (r.difference < (acks.get(r.asset)?.difference ?? 0n) || short(r).length > 0),
  );
  if (deficits.length === 0) return null;
  const what = (d: AssetReconciliation) => (d.difference < 0n ? `${d.asset} ${d.difference}` : `${d.asset} at ${short(d).map((i) => i.id).join(', ')}`);
  return `the chain holds less than the books in two runs: ${deficits.map(what).join(', ')}`;
}

/** The records the reconciliation reads and writes. */
export interface ReconciliationStore {
  /**
   * The books' side of each asset at `block` (chain base units), and the
   * addresses whose balances make the chain's side besides the service's own:
   * deposit addresses with deposits not swept yet, or a sweep on its way.
   */
  basis(
    network: Network,
    block: bigint,
    assets: readonly ChainAsset[],
    since: Date,
  ): Promise<{
    bases: ReconciliationBasis[];
    depositAddresses: string[];
    /** Per deposit address not being swept: its deposits not swept in a block up to `block` (chain base units). */
    held: { address: string; asset: ChainAsset; expected: bigint }[];
    /** Wallets created since `since` with no deposit recorded (the newest, a bounded number). */
    quiet: { address: string; asset: ChainAsset }[];
  }>;
  /** Transfers the books say FAILED since `since` (at most `limit`), with every attempt's txid. */
  failedTransfers(network: Network, since: Date, limit: number): Promise<{ id: string; kind: string; ownerId: string | null; asset: ChainAsset; amount: bigint; txids: string[] }[]>;
  /** Credited deposits of `asset` since `since` (at most `limit`), newest first. */
  creditedDeposits(network: Network, asset: ChainAsset, since: Date, limit: number): Promise<{ id: string; txid: string; amount: bigint }[]>;
  /** The assets whose latest run on the network showed a deficit (in total, or at a deposit address). */
  previousDeficits(network: Network): Promise<Set<ChainAsset>>;
  record(runs: AssetReconciliation[], involved: InvolvedItem[], id: () => string, at: Date): Promise<void>;
  /** Holds the network's payouts; false when they were held already. */
  hold(network: Network, reason: string, at: Date): Promise<boolean>;
  /**
   * Lets the network's payouts go on; false when they were not held. What the latest run of each
   * asset showed (its deficit, its items) is acknowledged: it does not hold the payouts again.
   */
  release(network: Network, at: Date): Promise<boolean>;
  /** What the operator acknowledged at the network's last resume, per asset. */
  acknowledged(network: Network): Promise<Map<ChainAsset, Acknowledged>>;
  /** The acknowledged deficit of these assets is gone (a run showed none): a new one holds again. */
  forgetDeficits(network: Network, assets: readonly ChainAsset[]): Promise<void>;
  holds(): Promise<{ network: Network; reason: string; heldAt: Date }[]>;
  isHeld(network: Network): Promise<boolean>;
}
