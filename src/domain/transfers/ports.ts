// What the outgoing-transfer pipeline and the sweeps need (ADR 0025): the
// sending side of a chain (balances, fees, building and broadcasting signed
// transactions), the transfers' storage with the per-sender nonces, and the
// sweeps' storage.
import type { BlockRef } from '../chains/chain-port.js';
import type { DerivationPath } from '../custody/derivation.js';
import type { Asset, ChainAsset, Network } from '../money/networks.js';
import type { StakeOperation } from '../energy/resources.js';
import type { EvmFees, OutgoingTransfer, TransferKind, TransferStatus } from './outgoing-transfer.js';
import type { Sweep, SweepCandidate, SweepPolicy } from './sweep.js';

/** A secp256k1 signature of a 32-byte digest. */
export interface DigestSignature {
  r: bigint;
  s: bigint;
  recovery: 0 | 1;
}

/** Signs a digest with the key of the transfer's sender (the SignerPort, bound to one path). */
export type SignDigest = (digest: Uint8Array) => Promise<DigestSignature>;

/** What a transaction moves: an asset (token or native) from one address to another. */
export interface TransferCall {
  asset: ChainAsset;
  from: string;
  to: string;
  /** Base units on chain. */
  amount: bigint;
}

export interface UnsignedTransfer extends TransferCall {
  /** EVM: the sender's nonce; null on TRON. */
  nonce: bigint | null;
  /** EVM: gas limit and fees; null on TRON. */
  gasLimit: bigint | null;
  fees: EvmFees | null;
  /** TRON: the most sun the transaction may burn for energy (its fee_limit); null on EVM. */
  feeLimit: bigint | null;
  /** TRON: a Stake 2.0 transaction of the energy account instead of a transfer (from = its owner). */
  stake?: StakeOperation;
}

/**
 * TRON: what a transfer burns in sun when the sender has no staked or free
 * resources: its energy at the chain's energy price (contract calls), its
 * bandwidth at the chain's bandwidth price, and the activation of a
 * recipient that was never activated (paid by the sender).
 */
export interface TronBurn {
  energy: bigint;
  bandwidth: bigint;
  activation: bigint;
  /** A contract call's energy in units (the node's estimate), which the energy above prices; none for a TRX transfer. */
  energyUnits?: bigint;
}

export interface SignedTransaction {
  txid: string;
  /** EVM: the raw transaction hex; TRON: the signed transaction JSON. */
  raw: string;
  /** TRON: when it expires (ms since epoch); null on EVM. */
  expiresAt: number | null;
}

/** An included transaction of ours: whether it succeeded, where, and what it paid in native base units. */
export interface SentReceipt {
  txid: string;
  status: 'success' | 'reverted';
  block: BlockRef;
  feePaid: bigint;
}

/** The node refused a broadcast for a reason that retrying the same bytes will not change. */
export class BroadcastRejected extends Error {
  constructor(
    readonly reason: 'nonce_too_low' | 'underpriced' | 'insufficient_funds' | 'expired' | 'invalid',
    message: string,
  ) {
    super(message);
    this.name = 'BroadcastRejected';
  }
}

/**
 * The node's dry run of a transfer reverts: the token contract refuses it
 * (a destination on its blocklist, a paused token). Sending it would only
 * burn gas, so the caller gives up instead of retrying.
 */
export class TransferRefused extends Error {
  constructor(
    readonly network: Network,
    message: string,
  ) {
    super(message);
    this.name = 'TransferRefused';
  }
}

/** Balances read from a chain's node (the treasury status, the sweeps). */
export interface BalanceReader {
  readonly network: Network;
  /**
   * Native base units (wei, sun) held by the address: at block `at` when given
   * (EVM; TRON reads its latest state whatever `at` says), else at the head.
   */
  nativeBalance(address: string, at?: bigint): Promise<bigint>;
  /** Token base units on chain held by the address, at block `at` when given (as nativeBalance). */
  tokenBalance(asset: Asset, address: string, at?: bigint): Promise<bigint>;
}

/**
 * The sending side of a chain. Like ChainPort, transient node failures are
 * retried inside and what remains is a ChainUnavailableError.
 */
export interface ChainSender extends BalanceReader {
  head(): Promise<BlockRef>;
  /**
   * TRON: the time (ms) of the latest irreversible (solidified) block: an
   * attempt that expired before it can never be included, on any fork. null
   * on EVM, where the nonce decides.
   */
  finalizedTime(): Promise<number | null>;
  /**
   * TRON: what the transfer would burn (energy, bandwidth, activation); null on EVM (gas limit × fees).
   * Throws TransferRefused when the contract would revert it.
   */
  burnEstimate(call: TransferCall): Promise<TronBurn | null>;
  /** EVM: fees that get a transaction into the next blocks now; null on TRON. */
  feeQuote(): Promise<EvmFees | null>;
  /**
   * EVM: the gas limit to give this transfer (the node's estimate with a margin); null on TRON.
   * Throws TransferRefused when the contract would revert it.
   */
  gasLimit(call: TransferCall): Promise<bigint | null>;
  /** EVM: how many transactions of the address are in blocks (its next unmined nonce); null on TRON. A hint: one backend's read. */
  minedNonce(address: string): Promise<bigint | null>;
  /**
   * EVM: how many transactions of the address are in blocks with at least
   * `confirmations` confirmations at `head`: a nonce below it is taken for
   * good (short of a reorg deeper than that); null on TRON.
   */
  settledNonce(address: string, head: bigint, confirmations: number): Promise<bigint | null>;
  /**
   * EVM: the hash of the transaction that used `nonce` of the address, found
   * in the first block (up to `head`) whose state counts it; null when it
   * cannot be found (older than the state a node keeps, a backend behind).
   * The proof that a nonce was taken by another transaction, not ours.
   */
  nonceHolder?(address: string, nonce: bigint, head: bigint): Promise<string | null>;
  /** Builds the transaction and signs it through `sign`: the signed bytes and txid, nothing broadcast. */
  sign(tx: UnsignedTransfer, sign: SignDigest): Promise<SignedTransaction>;
  /** Broadcasts signed bytes; 'known' when the node already had them. Throws BroadcastRejected or ChainUnavailableError. */
  broadcast(raw: string): Promise<'accepted' | 'known'>;
  /** The receipt of one of our transactions, null while (or when no longer) in a block. One backend's read. */
  sentReceipt(txid: string): Promise<SentReceipt | null>;
  /**
   * The receipt as any of the network's URLs has it; null only when every URL
   * answered and none has it (a URL that cannot answer throws): what a
   * verdict that the transaction will never be mined rests on.
   */
  sentReceiptOnEveryNode(txid: string): Promise<SentReceipt | null>;
  /**
   * Whether every URL answered with this transaction reverted in one same
   * block: what failing (and refunding) a transfer on a revert rests on. A
   * URL without the receipt, with another outcome or block, or unable to
   * answer makes it false.
   */
  revertedOnEveryNode(txid: string): Promise<boolean>;
  /**
   * The receipt the URLs agree on: every URL asked, at least two (one when
   * only one is configured) show it in one same block with one same outcome,
   * and none shows another. Null otherwise (not mined, not yet everywhere, or
   * URLs that disagree). What confirming a payout, and any verdict that
   * takes money back on a receipt's word, rest on: one URL can lie.
   */
  agreedReceipt(txid: string): Promise<SentReceipt | null>;
}

export interface TransferCount {
  network: Network;
  kind: TransferKind;
  status: TransferStatus;
  count: number;
}

/** Outgoing transfers and their attempts, and the next nonce of each sender. */
export interface TransferRepo {
  add(transfer: OutgoingTransfer): Promise<void>;
  get(id: string): Promise<OutgoingTransfer | null>;
  /** Ids of the network's transfers that are not final, oldest first: up to `limit` REQUESTED, and up to `limit` on their way. */
  openIds(network: Network, limit: number): Promise<string[]>;
  /** The transfer, locked until the transaction ends; null when another transaction holds it (or there is none). */
  lock(id: string): Promise<OutgoingTransfer | null>;
  /** Writes status, nonce, inclusion, times, failure and fee, and inserts attempts not stored yet. */
  save(transfer: OutgoingTransfer): Promise<void>;
  /**
   * The sender's next nonce, taken under the row lock of (network, address)
   * and moved on by one: never lower than `minedNonce` (what the chain has
   * mined), so a nonce an outside signer used is skipped, never reused.
   */
  takeNonce(network: Network, address: string, minedNonce: bigint): Promise<bigint>;
  /**
   * Holds the sender's row (the one takeNonce locks) until the unit of work ends: units of work that judge
   * what the address can still pay (its balance less committedOutflow) and then commit a transfer from it go
   * one after another, so two of them never both count the same coins.
   */
  lockOutflow(network: Network, address: string): Promise<void>;
  /**
   * Native base units that not-yet-final transfers from the address may still
   * spend: amounts of `nativeAsset` plus reserved gas (EVM: gas limit × fee
   * cap or the latest attempt's max fee, or × `unsignedGasPrice` for one not
   * signed yet, which has neither; TRON: the fee cap, the most it may burn).
   */
  committedOutflow(network: Network, address: string, nativeAsset: ChainAsset, unsignedGasPrice?: bigint): Promise<bigint>;
  /** The latest transfer of `kind` and `asset` on the network: how it stands, and since when. */
  latestOfKind(network: Network, kind: TransferKind, asset: ChainAsset): Promise<{ status: TransferStatus; failure: string | null; updatedAt: Date } | null>;
  /** Base units of `asset` that not-yet-final transfers from the address will still move (no gas). */
  pendingAmount(network: Network, address: string, asset: ChainAsset): Promise<bigint>;
  /** Whether a gas top-up to `address` is on its way (requested, not final). */
  topUpOnItsWay(network: Network, address: string): Promise<boolean>;
  countByKindAndStatus(): Promise<TransferCount[]>;
  /** The sender's transfers of these kinds that are not final, oldest first. */
  openOfKinds(network: Network, from: string, kinds: readonly TransferKind[]): Promise<OutgoingTransfer[]>;
}

/** Sweeps, their deposits and the operator's sweep policies. */
export interface SweepRepo {
  /**
   * Wallets of the network whose credited, unswept deposits of one asset add
   * up to at least the asset's minimum, with no sweep open, up to `limit`.
   */
  candidates(network: Network, minimums: ReadonlyMap<Asset, bigint>, limit: number): Promise<SweepCandidate[]>;
  /** Adds the sweep and ties the deposits to it; false (nothing written) when a sweep of the wallet is open or a deposit was taken. */
  add(sweep: Sweep, depositIds: readonly string[]): Promise<boolean>;
  /** Ids of the network's open sweeps, oldest first. */
  openIds(network: Network, limit: number): Promise<string[]>;
  /** The sweep, locked until the transaction ends; null when another transaction holds it (or it is gone). */
  lock(id: string): Promise<Sweep | null>;
  /** The sweep's status without a lock (null when there is no such sweep). */
  statusOf(id: string): Promise<Sweep['status'] | null>;
  update(sweep: Sweep): Promise<void>;
  /**
   * Ties to the sweep every CONFIRMED deposit of its wallet that no sweep has
   * yet (credited since the sweep was planned), and returns what the sweep's
   * deposits add up to: on chain (what the sweep moves) and in API precision.
   */
  attachConfirmed(sweepId: string, walletId: string, asset: Asset): Promise<{ chainTotal: bigint; total: bigint }>;
  /**
   * The native money on `address` that is someone's and not swept yet (base units on chain): its deposits of
   * the native asset not swept (open, credited, flagged) and the unexpected native arrivals not recovered
   * (listed, on their way back). A sweep spends none of it as gas but its own.
   */
  nativeHeldAt(network: Network, address: string, nativeAsset: Asset): Promise<bigint>;
  /**
   * After a reorg: the return sweeps that have sent nothing yet (waiting for gas, or their top-up on its way)
   * of RETURNING unexpected arrivals in blocks above `block` end FAILED (their arrival is forgotten).
   */
  failUnsentReturnsAbove(network: Network, block: bigint): Promise<void>;
  /** A sweep that failed gives its deposits back (to be swept again later). */
  releaseDeposits(sweepId: string): Promise<void>;
  /** The CONFIRMED deposits of the sweep become SWEPT at `at`; their ids. */
  markSwept(sweepId: string, at: Date): Promise<string[]>;
  /** The wallet becomes SWEPT when nothing of it is left unswept (an ARCHIVED one stays ARCHIVED). */
  markWalletSwept(walletId: string): Promise<void>;
  /** The sweep that requested this transfer (top-up or sweep), locked until the transaction ends. */
  byTransfer(transferId: string): Promise<Sweep | null>;
  /** The policies the operator set (the defaults apply elsewhere). */
  policies(): Promise<SweepPolicy[]>;
  setPolicy(policy: SweepPolicy): Promise<void>;
  /** Notes that sweeps of the asset were started at `at` (the policy's schedule). */
  markRun(network: Network, asset: Asset, at: Date): Promise<void>;
}

/** The signing path of a service or deposit address with the address itself. */
export interface SenderKey {
  address: string;
  path: DerivationPath;
}
