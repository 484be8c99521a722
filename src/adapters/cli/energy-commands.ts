// ops energy status | stake | unstake | withdraw | policy (ADR 0035, docs/operations.md#tron-energy):
// the energy account of each TRON network, its stake and what it lends, and
// the operator's choice of where a TRON transfer's energy comes from. The
// network is --network (TRON_TESTNET, TRON_MAINNET, or TRON for this side's).
import { z } from 'zod';
import { ManageEnergy, TRON_NETWORKS, parseTrx, type EnergyAccountStatus, type EnergyPolicyView } from '../../application/energy/manage-energy.js';
import { TOKENS } from '../../application/tokens.js';
import { ENERGY_SOURCES, MAX_MARGIN_PERCENT, MAX_WAIT_SECONDS, MIN_WAIT_SECONDS } from '../../domain/energy/energy-plan.js';
import { DomainError } from '../../domain/errors.js';
import type { EnergyChain } from '../../domain/energy/resources.js';
import type { Network } from '../../domain/money/networks.js';
import type { BalanceReader } from '../../domain/transfers/ports.js';
import { defineCommand, type OpsCommand, type OpsContext, type OpsMode } from './command.js';
import { networkFlag } from './network-flag.js';

const NETWORK_FLAG = { network: { type: 'string' } } as const;

/** --network: a TRON network (or TRON, its network on this side). */
const tronNetwork = (mode: OpsMode) =>
  networkFlag(mode.side)
    .refine((n): n is Network => (TRON_NETWORKS as readonly string[]).includes(n), `energy is TRON's: give ${TRON_NETWORKS.join(' or ')}`)
    .describe(`TRON (the ${mode.side === 'live' ? 'mainnet' : 'testnet'} here) or a network: ${TRON_NETWORKS.join(', ')}; any case`);

const trxFlag = z.string({ error: '--trx is required (a whole number of TRX)' }).regex(/^[1-9]\d{0,11}$/, 'a whole number of TRX, 1 to 999999999999');

function readerOf(ctx: OpsContext, network: Network): (EnergyChain & BalanceReader) | null {
  const reader = ctx.resolve<BalanceReader[]>(TOKENS.BalanceReaders).find((r) => r.network === network);
  return reader && 'resources' in reader ? (reader as EnergyChain & BalanceReader) : null;
}

function needReader(ctx: OpsContext, network: Network): EnergyChain & BalanceReader {
  const reader = readerOf(ctx, network);
  if (!reader) throw new DomainError('UNPROCESSABLE', `no node is configured for ${network} (${network}_RPC_URL)`);
  return reader;
}

/** --network and --trx. */
const stakeInput = (mode: OpsMode) => z.object({ network: tronNetwork(mode), trx: trxFlag });

const status = defineCommand({
  path: ['energy', 'status'],
  readsNodes: true,
  slow: true,
  summary: 'The energy account of each TRON network: staked TRX, energy available and used, loans outstanding, the source [--network TRON_TESTNET]',
  flags: { ...NETWORK_FLAG },
  input: (mode) => z.object({ network: tronNetwork(mode).optional() }),
  async run(ctx, input) {
    const manage = ctx.resolve(ManageEnergy);
    const networks = input.network ? [input.network] : TRON_NETWORKS;
    return { networks: await Promise.all(networks.map((n) => manage.status(n, readerOf(ctx, n)))) };
  },
  describe: (r) =>
    (r.networks as EnergyAccountStatus[])
      .map((n) =>
        [
          `${n.chain} energy account ${n.energy_account}${!n.node ? ` (no node is configured for ${n.chain}: nothing read from the chain)` : n.activated ? '' : ' (not activated: send it TRX)'}, source ${n.policy.source} (margin ${n.policy.margin_percent} %, longest wait ${n.policy.max_wait_seconds} s)`,
          `  balance ${n.balance_trx} TRX, stake ${n.stake_trx} TRX (${n.delegated_trx} of it lent now), unstaking ${n.unstaking_trx} TRX${n.next_withdrawable_at ? ` (the next withdrawable at ${n.next_withdrawable_at})` : ''}, withdrawable ${n.withdrawable_trx} TRX`,
          `  energy ${n.energy_available} available of ${n.energy_limit} (${n.energy_used} used), lendable ${n.lendable_trx} TRX of stake, ${n.loans_open} loans open`,
          `  last 24 h: ${n.last_24h.loans_taken_back} loans taken back, ${n.last_24h.trx_saved} TRX saved against burning (from the receipts), ${n.last_24h.burn_fallbacks} transfers burnt for want of energy`,
          ...n.transfers_open.map((t) => `  ${t.kind} ${t.trx} TRX: ${t.status} (${t.id})`),
        ].join('\n'),
      )
      .join('\n'),
});

const stake = defineCommand({
  path: ['energy', 'stake'],
  readsNodes: true,
  summary: 'Stake TRX of the energy account for ENERGY (Stake 2.0; the chain-worker sends it): energy stake --network TRON_TESTNET --trx 10000',
  flags: { ...NETWORK_FLAG, trx: { type: 'string' } },
  input: (mode) => stakeInput(mode),
  async run(ctx, input) {
    const network = input.network;
    return ctx.resolve(ManageEnergy).stake(network, parseTrx(input.trx, 'trx'), needReader(ctx, network));
  },
  describe: (r) => `${String(r.chain)}: staking ${String(r.trx)} TRX for energy (transfer ${String(r.transfer_id)}, ${String(r.status)}); the chain-worker sends it`,
});

const unstake = defineCommand({
  path: ['energy', 'unstake'],
  readsNodes: true,
  summary: 'Unstake TRX of the energy account (withdrawable with energy withdraw after the network’s unfreeze delay): energy unstake --network TRON_TESTNET --trx 5000',
  flags: { ...NETWORK_FLAG, trx: { type: 'string' } },
  input: (mode) => stakeInput(mode),
  async run(ctx, input) {
    const network = input.network;
    return ctx.resolve(ManageEnergy).unstake(network, parseTrx(input.trx, 'trx'), needReader(ctx, network));
  },
  describe: (r) => `${String(r.chain)}: unstaking ${String(r.trx)} TRX (transfer ${String(r.transfer_id)}, ${String(r.status)}); withdrawable after the unfreeze delay`,
});

const withdraw = defineCommand({
  path: ['energy', 'withdraw'],
  readsNodes: true,
  summary: 'Withdraw unstaked TRX past its unfreeze delay back to the energy account’s balance (the chain-worker sends it): energy withdraw --network TRON_TESTNET',
  flags: { ...NETWORK_FLAG },
  input: (mode) => z.object({ network: tronNetwork(mode) }),
  async run(ctx, input) {
    return ctx.resolve(ManageEnergy).withdraw(input.network, needReader(ctx, input.network));
  },
  describe: (r) => `${String(r.chain)}: withdrawing ${String(r.trx)} TRX of unstaked TRX (transfer ${String(r.transfer_id)}, ${String(r.status)})`,
});

const policy = defineCommand({
  path: ['energy', 'policy'],
  positionals: ['action'],
  summary:
    'Where TRON transfers get their energy: energy policy set --network TRON_TESTNET --source stake|burn [--margin-percent 10 (0 to 100)] [--max-wait-seconds 120 (60 to 3600)]; energy policy show [--network NETWORK]',
  flags: { ...NETWORK_FLAG, source: { type: 'string' }, 'margin-percent': { type: 'string' }, 'max-wait-seconds': { type: 'string' } },
  input: (mode) => {
    const whole = (min: number, max: number, unit: string) =>
      z
        .string()
        .regex(/^(0|[1-9]\d{0,5})$/, `a whole number of ${unit}, ${min} to ${max}`)
        .transform(Number)
        .pipe(z.number().min(min, `a whole number of ${unit}, ${min} to ${max}`).max(max, `a whole number of ${unit}, ${min} to ${max}`));
    return z.discriminatedUnion(
      'action',
      [
        z.object({
          action: z.literal('set'),
          network: tronNetwork(mode),
          source: z.enum(ENERGY_SOURCES, {
            error: (issue) => (issue.input === undefined ? `required: ${ENERGY_SOURCES.join(' or ')}` : ENERGY_SOURCES.join(' or ')),
          }),
          'margin-percent': whole(0, MAX_MARGIN_PERCENT, 'percent').optional(),
          'max-wait-seconds': whole(MIN_WAIT_SECONDS, MAX_WAIT_SECONDS, 'seconds').optional(),
        }),
        z.object({ action: z.literal('show'), network: tronNetwork(mode).optional() }),
      ],
      { error: 'energy policy set or energy policy show' },
    );
  },
  async run(ctx, input) {
    const manage = ctx.resolve(ManageEnergy);
    if (input.action === 'show') return { policies: await manage.policies(input.network) };
    return manage.setPolicy({
      network: input.network,
      source: input.source,
      marginPercent: input['margin-percent'],
      maxWaitSeconds: input['max-wait-seconds'],
    }) as unknown as Promise<Record<string, unknown>>;
  },
  describe: (r) => {
    const line = (p: EnergyPolicyView) => `${p.chain}: energy from ${p.source === 'stake' ? 'the stake (burning when short)' : 'burning TRX'}, margin ${p.margin_percent} %, longest wait ${p.max_wait_seconds} s${p.configured ? '' : ' (default)'}`;
    return Array.isArray(r.policies) ? (r.policies as EnergyPolicyView[]).map(line).join('\n') : line(r as unknown as EnergyPolicyView);
  },
});

export const ENERGY_COMMANDS: OpsCommand[] = [status, stake, unstake, withdraw, policy];
