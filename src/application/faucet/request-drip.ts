// POST /v2/sandbox/faucet (docs/adr/0029-sandbox-faucet.md): checks a drip
// request and queues it, in one transaction under the workspace's faucet
// lock, so that two parallel drips can never together pass the hour's drip
// count or a native budget. Nothing is sent here: the chain-worker sends each
// item from the network's faucet dispenser, and it arrives as a deposit.
import { addressProblem } from '../../domain/chains/address-problem.js';
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { DomainError } from '../../domain/errors.js';
import {
  FAUCET_BUDGET_WINDOW_MS,
  FAUCET_RATE_WINDOW_MS,
  asksNative,
  checkDripRate,
  checkNativeBudgets,
  dripStatusOf,
  planDrip,
  type Drip,
  type DripItem,
} from '../../domain/faucet/faucet.js';
import { Amount } from '../../domain/money/amount.js';
import { ASSET_SPECS, networkFor, networksOfSide, type BaseChain, type Network } from '../../domain/money/networks.js';
import type { Clock, RandomSource, TxContext, UnitOfWork } from '../../domain/ports.js';
import type { AddressCodec } from '../../domain/custody/ports.js';
import type { BalanceReader } from '../../domain/transfers/ports.js';
import { InternalAddresses } from '../custody/internal-addresses.js';
import { TOKENS } from '../tokens.js';

export interface RequestDripCommand {
  chain: BaseChain;
  address: string;
  assets: { symbol: string; amount?: string | undefined }[];
}

@injectable()
export class RequestDrip {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.AddressCodec) private readonly codec: AddressCodec,
    @inject(InternalAddresses) private readonly service: InternalAddresses,
    @inject(TOKENS.BalanceReaders) private readonly readers: readonly BalanceReader[],
    @inject(TOKENS.FaucetAvailable) private readonly available: boolean,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
  ) {}

  /** Who may ask at all: the scope, a test key, a deployment with the faucet (checked before the body is read). */
  admit(principal: Principal): void {
    requireScope(principal, 'wallets:write');
    if (principal.side !== 'test') throw new DomainError('FAUCET_ONLY_SANDBOX', 'The faucet takes test keys only');
    if (!this.available) throw new DomainError('FAUCET_NOT_SANDBOX', 'The faucet exists only in the local sandbox');
  }

  async execute(principal: Principal, cmd: RequestDripCommand): Promise<Drip> {
    this.admit(principal);
    const network = networkFor(cmd.chain, 'test');
    return this.uow.run(async (tx) => {
      const limits = await tx.faucet.limits();
      const items = planDrip(cmd.chain, cmd.assets, limits);
      // One address rule for every input (docs/api.md#addresses): a TRON base58 or EIP-55 checksummed address, else a validation error.
      const address = this.codec.normalize(cmd.chain, cmd.address);
      if (address === null) {
        const problem = addressProblem(cmd.chain, cmd.address);
        throw new DomainError('VALIDATION_ERROR', `address ${problem}`, [{ path: 'address', message: problem }]);
      }
      // An archived wallet still counts: it stays monitored and credited.
      const wallet = (await tx.wallets.byAddresses(network, [address])).find((w) => w.workspaceId === principal.workspaceId);
      if (!wallet) throw new DomainError('FAUCET_ADDRESS_NOT_FOUND', `address is not a sandbox wallet of this workspace on ${cmd.chain}`);
      // A wallet watches its own asset only: anything else sent there would never be credited. The address is the
      // workspace's wallet, so that is a fault of the item (a bad asset for the wallet), not an unknown address.
      const foreign = items.findIndex((i) => i.asset !== wallet.asset);
      if (foreign >= 0) {
        const message = `must be ${wallet.asset}, the asset of the wallet at this address (a wallet watches its own asset only)`;
        throw new DomainError('VALIDATION_ERROR', `assets.${foreign}.symbol: ${items[foreign]!.asset} ${message}`, [{ path: `assets.${foreign}.symbol`, message }]);
      }
      // From here the workspace's drip requests pass one at a time: the counts below cannot move under us.
      await tx.faucet.lockWorkspace(principal.workspaceId);
      const now = this.clock.now();
      checkDripRate(await tx.faucet.countSince(principal.workspaceId, new Date(now.getTime() - FAUCET_RATE_WINDOW_MS)), limits);
      if (asksNative(items)) {
        if (!(await tx.deposits.hasCreditedTokenDeposit(principal.workspaceId, networksOfSide('test')))) {
          throw new DomainError('FAUCET_NATIVE_REQUIRES_DEPOSIT', 'Native currency is dripped once a sandbox token deposit of this workspace is confirmed');
        }
        checkNativeBudgets(items, await tx.faucet.givenSince(principal.workspaceId, new Date(now.getTime() - FAUCET_BUDGET_WINDOW_MS)), limits);
        // The dispenser is shared by every workspace: its native funds are read and promised one drip at a time.
        await tx.faucet.lockDispenser(network);
        await this.checkDispenser(tx, network, items);
      }
      const lines = items.map((i) => ({ asset: i.asset, amount: i.amount.units, status: 'QUEUED' as const, transferId: null }));
      const drip: Drip = {
        id: this.random.uuid(),
        workspaceId: principal.workspaceId,
        network,
        walletId: wallet.id,
        address: wallet.address,
        status: dripStatusOf(lines),
        items: lines,
        createdAt: now,
        updatedAt: now,
      };
      await tx.faucet.add(drip);
      return drip;
    });
  }

  /** FAUCET_DISPENSER_EXHAUSTED: the dispenser, less what its transfers and the queued items will take, cannot pay the native items. */
  private async checkDispenser(tx: TxContext, network: Network, items: readonly DripItem[]): Promise<void> {
    const reader = this.readers.find((r) => r.network === network);
    const dispenser = await this.service.serviceAddress(network, 'faucet');
    for (const item of items.filter((i) => ASSET_SPECS[i.asset].native)) {
      const held = reader ? Amount.fromChainUnits(item.asset, await reader.nativeBalance(dispenser)).units : 0n;
      const committed = Amount.fromChainUnits(item.asset, await tx.transfers.committedOutflow(network, dispenser, item.asset)).units;
      const queued = await tx.faucet.queuedAmount(network, item.asset);
      if (held - committed - queued < item.amount.units) {
        throw new DomainError('FAUCET_DISPENSER_EXHAUSTED', `The faucet's ${item.asset} dispenser cannot fund this drip now; retry later, or ask for tokens only`);
      }
    }
  }
}
