// The reconciliation of the books with the chain (issue 30,
// docs/operations.md#reconciliation-with-the-chain): run by the dispatcher on a
// schedule (ledger.reconcile) and by `ops ledger reconcile`. Per network and
// asset, what the ledger says the service holds (treasury, gas tank, deposit
// addresses not swept yet, what is on its way) against the balances the chain
// shows at a safe depth, and the transfers the books say FAILED that are in a
// block after all (a payout both sent and refunded). A difference sets the
// reconciliation metric, is logged with what is involved, and holds the
// network's payouts until an operator looks (RECONCILE_HOLD_PAYOUTS).
import { inject, injectable } from 'tsyringe';
import { ChainUnavailableError } from '../../domain/chains/chain-port.js';
import {
  checkAddress,
  deficitAcknowledged,
  isAcknowledged,
  reconcileAsset,
  unbooked,
  shouldHold,
  type AssetReconciliation,
  type InvolvedItem,
  type ReconciliationStore,
} from '../../domain/ledger/reconciliation.js';
import { CHAIN_ASSETS, baseChainOf, isNativeCurrency, type Asset, type ChainAsset, type Network } from '../../domain/money/networks.js';
import type { Clock, NetworkRegistry, RandomSource } from '../../domain/ports.js';
import type { ChainSender } from '../../domain/transfers/ports.js';
import { InternalAddresses } from '../custody/internal-addresses.js';
import { TOKENS } from '../tokens.js';

export interface ReconcileOptions {
  /** Hold the network's payouts on a proved difference (RECONCILE_HOLD_PAYOUTS). */
  holdPayouts: boolean;
  /** How far back FAILED transfers and credited deposits are checked against the chain. */
  windowDays: number;
}

export interface ReconcileReport {
  network: Network;
  block: bigint;
  assets: AssetReconciliation[];
  involved: InvolvedItem[];
  /** Why the network's payouts are held after this run (null when they are not). */
  held: string | null;
  ok: boolean;
}

/** Most FAILED transfers, and credited deposits of an asset short on chain, checked per run. */
const CHECKED_PER_RUN = 500;

@injectable()
export class ReconcileChain {
  constructor(
    @inject(TOKENS.ReconciliationStore) private readonly store: ReconciliationStore,
    @inject(InternalAddresses) private readonly internal: InternalAddresses,
    @inject(TOKENS.NetworkRegistry) private readonly networks: NetworkRegistry,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
  ) {}

  async execute(chain: ChainSender, opts: ReconcileOptions): Promise<ReconcileReport> {
    const network = chain.network;
    const config = await this.networks.get(network);
    const head = (await chain.head()).number;
    // EVM: at the confirmation depth, every balance read at that one block. TRON's nodes read their latest state.
    const tron = baseChainOf(network) === 'TRON';
    const depth = BigInt(config.requiredConfirmations);
    const block = tron ? head : head > depth ? head - depth : 0n;
    const withContract = new Set(config.assets.filter((a) => a.contractAddress !== null || isNativeCurrency(a.asset)).map((a) => a.asset));
    const assets: ChainAsset[] = [...CHAIN_ASSETS[baseChainOf(network)].filter((a: Asset) => withContract.has(a)), ...(tron ? (['TRX'] as const) : [])];

    const since = new Date(this.clock.now().getTime() - opts.windowDays * 86_400_000);
    const { bases, depositAddresses, held: perAddress, quiet } = await this.store.basis(network, block, assets, since);
    const service = (await this.internal.serviceAddresses(network)).filter((s) => s.role === 'treasury' || s.role === 'gasTank').map((s) => s.address);
    const addresses = [...new Set([...service, ...depositAddresses])];
    const results: AssetReconciliation[] = [];
    const involved: InvolvedItem[] = [];
    for (const basis of bases) {
      const balanceOf = (a: string) => (isNativeCurrency(basis.asset) ? chain.nativeBalance(a, block) : chain.tokenBalance(basis.asset as Asset, a, block));
      let balances: bigint[];
      let quietBalances: bigint[];
      const mineQuiet = quiet.filter((q) => q.asset === basis.asset);
      try {
        balances = await Promise.all(addresses.map(balanceOf));
        quietBalances = await Promise.all(mineQuiet.map((q) => balanceOf(q.address)));
      } catch (err) {
        // A token the node adapter has no contract for cannot be read: left out. A node failing fails the run.
        if (err instanceof ChainUnavailableError) throw err;
        continue;
      }
      // Totals may net one address's shortfall against another's surplus: each deposit address on its own too.
      const at = new Map(addresses.map((a, i) => [a, balances[i]!]));
      const short = perAddress
        .filter((h) => h.asset === basis.asset)
        .map((h) => checkAddress(basis.asset, h.address, h.expected, at.get(h.address) ?? 0n))
        .filter((i): i is InvolvedItem => i !== null);
      involved.push(...short);
      involved.push(...mineQuiet.map((q, i) => unbooked(basis.asset, q.address, quietBalances[i]!)).filter((i): i is InvolvedItem => i !== null));
      results.push(reconcileAsset(network, block, basis, balances.reduce((s, b) => s + b, 0n), short.length));
    }

    // A transfer the books say FAILED (and refunded, for a withdrawal) whose transaction succeeded in a block.
    for (const t of await this.store.failedTransfers(network, since, CHECKED_PER_RUN)) {
      for (const txid of t.txids) {
        // What the URLs agree on: one URL's forged receipt must not hold the network's payouts.
        const receipt = await chain.agreedReceipt(txid);
        if (receipt?.status !== 'success') continue;
        involved.push({
          kind: t.kind === 'WITHDRAWAL' && t.ownerId ? 'withdrawal' : 'transfer',
          id: t.kind === 'WITHDRAWAL' && t.ownerId ? t.ownerId : t.id,
          ...(t.kind === 'WITHDRAWAL' ? { transferId: t.id } : {}),
          txid,
          asset: t.asset,
          amount: t.amount,
          why: `${t.kind} FAILED in the books, but ${txid} succeeded in block ${receipt.block.number}`,
        });
        break;
      }
    }
    // Where the chain holds less than the books: the credited deposits whose transaction no node has.
    for (const r of results.filter((x) => x.verdict === 'deficit' && !isNativeCurrency(x.asset))) {
      for (const d of await this.store.creditedDeposits(network, r.asset, since, CHECKED_PER_RUN)) {
        if ((await chain.sentReceiptOnEveryNode(d.txid)) !== null) continue;
        involved.push({ kind: 'deposit', id: d.id, txid: d.txid, asset: r.asset, amount: d.amount, why: `credited, but ${d.txid} is in no block on any URL` });
      }
    }

    const previous = await this.store.previousDeficits(network);
    const acks = await this.store.acknowledged(network);
    for (const i of involved) if (isAcknowledged(i, acks)) i.acknowledged = true;
    for (const r of results) if (deficitAcknowledged(r, involved, acks)) r.acknowledged = true;
    const now = this.clock.now();
    await this.store.record(results, involved, () => this.random.uuid(), now);
    const reason = shouldHold(results, previous, involved, acks);
    await this.store.forgetDeficits(network, results.filter((r) => r.difference >= 0n).map((r) => r.asset));
    if (reason && opts.holdPayouts) await this.store.hold(network, reason, now);
    const held = (await this.store.holds()).find((h) => h.network === network)?.reason ?? null;
    return { network, block, assets: results, involved, held, ok: involved.every((i) => i.kind === 'unbooked') && results.every((r) => r.verdict !== 'deficit') };
  }
}
