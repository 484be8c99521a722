// POST /v2/withdrawals (docs/api.md#withdrawals): checks the request, prices
// it (the flat withdrawal fee), applies the owner's mainnet security rules
// and locks the amount from available, all in one transaction with the
// withdrawal row, so two concurrent requests can never together spend more
// than the balance or pass a daily limit that each passes alone (the
// workspace's security lock serialises mainnet requests of one workspace;
// the ledger's non-negative rule the balance). Nothing is sent here: the
// chain-worker picks PENDING withdrawals up.
import { addressProblem } from '../../domain/chains/address-problem.js';
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { DomainError } from '../../domain/errors.js';
import { chargeWithdrawal } from '../../domain/fees/fee-engine.js';
import { DEFAULT_ASSET_FEES } from '../../domain/fees/fee-schedule.js';
import { lockForWithdrawal } from '../../domain/ledger/entries.js';
import { Amount } from '../../domain/money/amount.js';
import { isAssetOnChain, networkFor, networksOfSide, type Asset, type BaseChain } from '../../domain/money/networks.js';
import type { Clock, NetworkRegistry, RandomSource, UnitOfWork } from '../../domain/ports.js';
import type { AddressCodec } from '../../domain/custody/ports.js';
import { checkWithdrawalPolicy } from '../../domain/withdrawals/withdrawal-rules.js';
import type { Withdrawal } from '../../domain/withdrawals/withdrawal.js';
import { InternalAddresses } from '../custody/internal-addresses.js';
import { lostDestinationReason } from '../custody/lost-destination.js';
import { TOKENS } from '../tokens.js';
import { withdrawalEventData } from './withdrawal-view.js';


/** The rolling window of the daily limit. */
export const DAILY_WINDOW_MS = 24 * 3_600_000;

export interface CreateWithdrawalCommand {
  chain: BaseChain;
  asset: Asset;
  /** The decimal string as sent. */
  amount: string;
  destination: string;
  /** The Idempotency-Key header, or else the deprecated body field; null with neither. */
  idempotencyKey: string | null;
}

@injectable()
export class CreateWithdrawal {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.NetworkRegistry) private readonly networks: NetworkRegistry,
    @inject(TOKENS.AddressCodec) private readonly codec: AddressCodec,
    @inject(InternalAddresses) private readonly internal: InternalAddresses,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, cmd: CreateWithdrawalCommand): Promise<Withdrawal> {
    requireScope(principal, 'withdrawals:write');
    if (!isAssetOnChain(cmd.chain, cmd.asset)) {
      throw new DomainError('VALIDATION_ERROR', `${cmd.asset} is not an asset of ${cmd.chain}`, [{ path: 'asset', message: `not supported on ${cmd.chain}` }]);
    }
    const amount = Amount.parse(cmd.amount, cmd.asset);
    const destination = this.codec.normalize(cmd.chain, cmd.destination);
    if (destination === null) {
      throw new DomainError(
        'INVALID_DESTINATION_ADDRESS',
        `destination_address ${addressProblem(cmd.chain, cmd.destination)}`,
      );
    }
    // Addresses whose funds nobody can ever move: the zero account (a burn), precompiles and system contracts,
    // and the token contracts of any network (a token sent to a contract stays there), in any chain's spelling.
    const lost = await lostDestinationReason(this.codec, this.networks, cmd.chain, destination);
    if (lost) throw new DomainError('INVALID_DESTINATION_ADDRESS', `destination_address is ${lost}`);
    const configs = await this.networks.list();
    const network = networkFor(cmd.chain, principal.side);
    if (!configs.find((c) => c.network === network)?.enabled) throw new DomainError('CHAIN_NOT_ENABLED', `${network} is not enabled for withdrawals`);
    return this.uow.run(async (tx) => {
      const now = this.clock.now();
      const workspace = await tx.workspaces.get(principal.workspaceId);
      if (workspace?.withdrawalsFrozen) throw new DomainError('WITHDRAWALS_FROZEN', "This workspace's withdrawals are frozen");
      if (await this.internal.isInternal(tx, network, destination)) {
        throw new DomainError('DESTINATION_IS_INTERNAL', 'destination_address is an address of this service; internal transfers are not allowed');
      }
      const priced = chargeWithdrawal(amount, DEFAULT_ASSET_FEES[cmd.asset]);
      if (priced.net.units <= 0n) {
        throw new DomainError('AMOUNT_TOO_SMALL', `The amount does not cover the withdrawal fee of ${priced.fee.toString()} ${cmd.asset}`);
      }
      let status: Withdrawal['status'] = 'PENDING';
      if (principal.side === 'live') {
        // Taken before the window is read: the workspace's mainnet requests pass this point one at a time.
        const policy = await tx.security.getForUpdate(principal.workspaceId);
        const outcome = checkWithdrawalPolicy({
          policy,
          allowed: await tx.security.beneficiaries(principal.workspaceId),
          network,
          asset: cmd.asset,
          amount: amount.units,
          destination,
          recent: await tx.withdrawals.totalsSince(principal.workspaceId, networksOfSide('live'), new Date(now.getTime() - DAILY_WINDOW_MS)),
          now,
        });
        if (outcome.violation) {
          throw new DomainError('WITHDRAWAL_POLICY_VIOLATION', policyMessage(outcome.violation), { reason: outcome.violation });
        }
        if (outcome.needsApproval) status = 'PENDING_APPROVAL';
      }
      const withdrawal: Withdrawal = {
        id: this.random.uuid(),
        workspaceId: principal.workspaceId,
        network,
        asset: cmd.asset,
        amount: amount.units,
        fee: priced.fee.units,
        netAmount: priced.net.units,
        destination,
        status,
        idempotencyKey: cmd.idempotencyKey,
        transferId: null,
        txid: null,
        failure: null,
        requestedAt: now,
        confirmedAt: null,
        updatedAt: now,
      };
      // The lock first: INSUFFICIENT_BALANCE leaves nothing behind.
      await tx.ledger.post(lockForWithdrawal({ id: this.random.uuid(), network, at: now, withdrawalId: withdrawal.id, workspaceId: principal.workspaceId, amount }));
      await tx.withdrawals.add(withdrawal);
      if (status === 'PENDING_APPROVAL') {
        await tx.events.publish({ workspaceId: principal.workspaceId, side: principal.side, event: 'WITHDRAWAL_PENDING_APPROVAL', data: withdrawalEventData(withdrawal) });
      }
      return withdrawal;
    });
  }
}

function policyMessage(reason: string): string {
  switch (reason) {
    case 'DESTINATION_NOT_ALLOWLISTED':
      return 'The destination is not on the allowlist nor a beneficiary of this network';
    case 'DESTINATION_COOLING_OFF':
      return 'The destination was added recently and is still in its cooling-off period';
    case 'PER_TRANSACTION_LIMIT':
      return 'The amount is above the per-transaction limit';
    default:
      return 'The amount would exceed the rolling 24-hour limit';
  }
}
