// `ops energy ...` (ADR 0035): the operator's energy source per TRON network,
// staking and unstaking the energy account's TRX, and what it holds. A stake
// or an unstake is an outgoing transfer of its own kind, requested here and
// sent by the chain-worker through the one pipeline, exactly once.
import { inject, injectable } from 'tsyringe';
import { servicePath } from '../../domain/custody/derivation.js';
import { defaultEnergyPolicy, energyPolicy, type EnergyPolicy, type EnergySourceKind } from '../../domain/energy/energy-plan.js';
import {
  delegableStake,
  energyAvailable,
  MIN_STAKE_SUN,
  SUN_PER_TRX,
  unfreezingAt,
  type EnergyChain,
} from '../../domain/energy/resources.js';
import { DomainError } from '../../domain/errors.js';
import { baseChainOf, NETWORKS, type Network } from '../../domain/money/networks.js';
import type { Clock, RandomSource, TxContext, UnitOfWork } from '../../domain/ports.js';
import type { SignerPort } from '../../domain/custody/ports.js';
import { requestTransfer, type TransferKind } from '../../domain/transfers/outgoing-transfer.js';
import type { BalanceReader } from '../../domain/transfers/ports.js';
import { TOKENS } from '../tokens.js';

/** What a Stake 2.0 transaction of the energy account may burn for its bandwidth (about 300 bytes at 1,000 sun). */
export const STAKE_TX_FEE_CAP = SUN_PER_TRX;
/** A take-back not confirmed this long after it was asked is counted as failing (it may be refused at broadcast for ever). */
export const TAKE_BACK_SLOW_MS = 10 * 60_000;

/** TRX the energy account keeps for the bytes of the take-backs its open loans still need (one each). */
export async function takeBackReserve(tx: TxContext, network: Network): Promise<bigint> {
  const { lent } = await tx.energy.openCounts(network, new Date(0));
  return BigInt(lent) * STAKE_TX_FEE_CAP;
}

/**
 * Stake promised but not yet gone from what the chain shows as lendable: loans and unstakes requested whose
 * transaction is in no block yet (once in one, the chain's stake no longer counts it).
 */
export async function promisedStake(tx: TxContext, network: Network, account: string): Promise<bigint> {
  const unstakes = (await tx.transfers.openOfKinds(network, account, ['ENERGY_UNSTAKE'])).filter((u) => !u.included);
  return (await tx.energy.promisedStake(network)) + unstakes.reduce((t, u) => t + u.amount, 0n);
}

export const TRON_NETWORKS = NETWORKS.filter((n) => baseChainOf(n) === 'TRON');

export interface EnergyPolicyView {
  chain: Network;
  source: EnergySourceKind;
  margin_percent: number;
  max_wait_seconds: number;
  configured: boolean;
}

const policyView = (p: EnergyPolicy, configured: boolean): EnergyPolicyView => ({
  chain: p.network,
  source: p.source,
  margin_percent: p.marginPercent,
  max_wait_seconds: p.maxWaitSeconds,
  configured,
});

/** TRX with up to six decimals, from sun. */
export const trx = (sun: bigint): string => {
  const size = sun < 0n ? -sun : sun;
  const whole = size / SUN_PER_TRX;
  const part = size % SUN_PER_TRX;
  return `${sun < 0n ? '-' : ''}${part === 0n ? whole.toString() : `${whole}.${part.toString().padStart(6, '0').replace(/0+$/, '')}`}`;
};

/** Whole TRX as sun: the only amounts the energy commands take. */
export function parseTrx(text: string, field: string): bigint {
  if (!/^[1-9]\d{0,11}$/.test(text)) throw new DomainError('VALIDATION_ERROR', `--${field} is a whole number of TRX, 1 to 999999999999`, { field });
  return BigInt(text) * SUN_PER_TRX;
}

export interface EnergyAccountStatus {
  chain: Network;
  energy_account: string;
  policy: EnergyPolicyView;
  /** A node is configured for the network: false, and nothing below is read from a chain. */
  node: boolean;
  /** Activated on chain. */
  activated: boolean;
  balance_trx: string;
  /** The whole stake for energy: what is staked and not lent now (staked_trx), and what is lent (delegated_trx). */
  stake_trx: string;
  staked_trx: string;
  delegated_trx: string;
  unstaking_trx: string;
  /** When the next unstaked TRX can be withdrawn (ISO 8601), null when nothing is unstaking. */
  next_withdrawable_at: string | null;
  withdrawable_trx: string;
  energy_limit: string;
  energy_used: string;
  energy_available: string;
  /** Sun of stake the account may still lend, less what open loans promised. */
  lendable_trx: string;
  loans_open: number;
  /** In the last 24 hours: transfers that burnt though the source is the stake, loans taken back, and the TRX their transfers did not burn. */
  last_24h: { burn_fallbacks: number; loans_taken_back: number; trx_saved: string };
  /** Stake 2.0 transactions of the account not final yet. */
  transfers_open: { id: string; kind: string; status: string; trx: string }[];
}

type EnergyReader = EnergyChain & BalanceReader;

@injectable()
export class ManageEnergy {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Signer) private readonly signer: SignerPort,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
  ) {}

  private tronOnly(network: Network): void {
    if (baseChainOf(network) !== 'TRON') throw new DomainError('VALIDATION_ERROR', `energy is TRON's: ${network} pays gas instead`, { field: 'chain' });
  }

  energyAccount(network: Network): Promise<string> {
    return this.signer.deriveAddress('TRON', servicePath(network, 'energy'));
  }

  async setPolicy(input: { network: Network; source: EnergySourceKind; marginPercent?: number; maxWaitSeconds?: number }): Promise<EnergyPolicyView> {
    this.tronOnly(input.network);
    return this.uow.run(async (tx) => {
      const current = (await tx.energy.policies()).find((p) => p.network === input.network) ?? defaultEnergyPolicy(input.network);
      let policy: EnergyPolicy;
      try {
        policy = energyPolicy(input.network, input.source, input.marginPercent ?? current.marginPercent, input.maxWaitSeconds ?? current.maxWaitSeconds, this.clock.now());
      } catch (err) {
        const badMargin = input.marginPercent !== undefined && /margin/.test((err as Error).message);
        throw new DomainError('VALIDATION_ERROR', (err as Error).message, { field: badMargin ? 'margin-percent' : 'max-wait-seconds' });
      }
      await tx.energy.setPolicy(policy);
      return policyView(policy, true);
    });
  }

  async policies(network?: Network): Promise<EnergyPolicyView[]> {
    if (network) this.tronOnly(network);
    const configured = await this.uow.run((tx) => tx.energy.policies());
    return (network ? [network] : TRON_NETWORKS).map((n) => {
      const found = configured.find((p) => p.network === n);
      return policyView(found ?? defaultEnergyPolicy(n), found !== undefined);
    });
  }

  /** Requests a stake of `sun` from the energy account's balance (what open transfers will take from it set aside). */
  stake(network: Network, sun: bigint, chain: EnergyReader) {
    return this.request(network, 'ENERGY_STAKE', sun, async (account, tx) => {
      const balance = await chain.nativeBalance(account);
      // The bytes of the take-backs its open loans still need stay liquid (takeBackReserve).
      const reserve = await takeBackReserve(tx, network);
      const available = balance - (await tx.transfers.committedOutflow(network, account, 'TRX')) - reserve;
      if (available < sun + STAKE_TX_FEE_CAP) {
        throw new DomainError(
          'UNPROCESSABLE',
          `the energy account ${account} holds ${trx(available)} TRX free to stake (${trx(reserve)} TRX kept for the take-backs of its open loans); ${trx(sun)} TRX and up to ${trx(STAKE_TX_FEE_CAP)} TRX of bandwidth are needed: send TRX to it first`,
        );
      }
    });
  }

  /** Requests an unstake of `sun` of the stake that is neither lent nor promised to an open loan. */
  unstake(network: Network, sun: bigint, chain: EnergyReader) {
    return this.request(network, 'ENERGY_UNSTAKE', sun, async (account, tx) => {
      const [stake, resources] = await Promise.all([chain.stake(account), chain.resources(account)]);
      if (!stake || !resources || stake.staked + stake.delegated === 0n) throw new DomainError('UNPROCESSABLE', `the energy account ${account} has nothing staked`);
      // java-tron keeps at most 32 unstakes waiting at once (UNFREEZE_MAX_TIMES), counting those on their way.
      const waiting = stake.unfreezing.filter((u) => u.expiresAt > this.clock.now().getTime()).length;
      const onTheirWay = await tx.transfers.openOfKinds(network, account, ['ENERGY_UNSTAKE']);
      if (waiting + onTheirWay.length >= 32) throw new DomainError('UNPROCESSABLE', 'TRON allows 32 unstakes waiting at once: wait for one to pass its delay');
      // Promised to loans and unstakes the chain does not show yet (under the lender's lock: no loan is planned meanwhile).
      const free = delegableStake(stake, resources) - (await promisedStake(tx, network, account));
      if (free < sun) throw new DomainError('UNPROCESSABLE', `${trx(free > 0n ? free : 0n)} TRX of the stake is free to unstake (the rest is lent, promised to a loan, or stands for energy used)`);
    });
  }

  /** Requests the withdrawal of unstaked TRX whose unfreeze delay has passed, back to the energy account's balance. */
  async withdraw(network: Network, chain: EnergyReader) {
    this.tronOnly(network);
    const account = await this.energyAccount(network);
    const stake = await chain.stake(account);
    const { withdrawable } = stake ? unfreezingAt(stake, this.clock.now().getTime()) : { withdrawable: 0n };
    if (withdrawable === 0n) throw new DomainError('UNPROCESSABLE', 'nothing unstaked is past its unfreeze delay yet (energy status shows what is unstaking)');
    const open = await this.uow.run((tx) => tx.transfers.openOfKinds(network, account, ['ENERGY_WITHDRAW']));
    if (open.length > 0) throw new DomainError('CONFLICT', `a withdrawal of unstaked TRX is on its way already (${open[0]!.id})`);
    return this.request(network, 'ENERGY_WITHDRAW', withdrawable, async () => {});
  }

  /** The check and the request in one transaction, under the network's lender lock (LendEnergy plans loans under it too). */
  private async request(network: Network, kind: TransferKind, sun: bigint, check: (account: string, tx: TxContext) => Promise<void>) {
    this.tronOnly(network);
    if (sun < MIN_STAKE_SUN) throw new DomainError('VALIDATION_ERROR', 'at least 1 TRX', { field: 'trx' });
    const account = await this.energyAccount(network);
    const transfer = requestTransfer({
      id: this.random.uuid(),
      kind,
      network,
      asset: 'TRX',
      from: account,
      fromPath: servicePath(network, 'energy'),
      to: account,
      amount: sun,
      requestedAt: this.clock.now(),
      feeCap: STAKE_TX_FEE_CAP,
    });
    await this.uow.run(async (tx) => {
      await tx.energy.lockLender(network);
      await check(account, tx);
      await tx.transfers.add(transfer);
    });
    return { chain: network, energy_account: account, transfer_id: transfer.id, kind, trx: trx(sun), status: transfer.status };
  }

  async status(network: Network, chain: EnergyReader | null): Promise<EnergyAccountStatus> {
    this.tronOnly(network);
    const account = await this.energyAccount(network);
    const [policy] = await this.policies(network);
    const day = new Date(this.clock.now().getTime() - 24 * 3600_000);
    const { loans, open, summary, promised } = await this.uow.run(async (tx) => ({
      summary: await tx.energy.summary(network, day),
      loans: await tx.energy.openCounts(network, new Date(this.clock.now().getTime() - TAKE_BACK_SLOW_MS)),
      open: await tx.transfers.openOfKinds(network, account, ['ENERGY_STAKE', 'ENERGY_DELEGATE', 'ENERGY_RECLAIM', 'ENERGY_UNSTAKE', 'ENERGY_WITHDRAW']),
      promised: await promisedStake(tx, network, account),
    }));
    const [stake, resources] = chain ? await Promise.all([chain.stake(account), chain.resources(account)]) : [null, null];
    const lendable = stake && resources ? delegableStake(stake, resources) - promised : 0n;
    const now = this.clock.now().getTime();
    const unfreezing = stake ? unfreezingAt(stake, now) : { withdrawable: 0n, waiting: 0n };
    const next = stake?.unfreezing.filter((u) => u.expiresAt > now).reduce<number | null>((m, u) => (m === null || u.expiresAt < m ? u.expiresAt : m), null) ?? null;
    return {
      chain: network,
      energy_account: account,
      policy: policy!,
      node: chain !== null,
      activated: stake !== null,
      balance_trx: trx(stake?.balance ?? 0n),
      stake_trx: trx((stake?.staked ?? 0n) + (stake?.delegated ?? 0n)),
      staked_trx: trx(stake?.staked ?? 0n),
      delegated_trx: trx(stake?.delegated ?? 0n),
      unstaking_trx: trx(unfreezing.waiting),
      next_withdrawable_at: next === null ? null : new Date(next).toISOString(),
      withdrawable_trx: trx(unfreezing.withdrawable),
      energy_limit: (resources?.energyLimit ?? 0n).toString(),
      energy_used: (resources?.energyUsed ?? 0n).toString(),
      energy_available: resources ? energyAvailable(resources).toString() : '0',
      lendable_trx: trx(lendable > 0n ? lendable : 0n),
      loans_open: loans.open,
      last_24h: { burn_fallbacks: summary.fallbacks, loans_taken_back: summary.reclaimed, trx_saved: trx(summary.burnAvoided) },
      transfers_open: open.map((t) => ({ id: t.id, kind: t.kind, status: t.status, trx: trx(t.amount) })),
    };
  }
}
