// ops sweep policy set | show, treasury status (docs/operations.md#sweeps-and-the-gas-tank):
// the operator's sweep minimum and schedule per network and asset, and the
// service accounts of each network with their balances read from the node.
import { z } from 'zod';
import { ManageSweepPolicy } from '../../application/sweeps/manage-sweep-policy.js';
import { TreasuryStatus, type NetworkTreasuryStatus } from '../../application/sweeps/treasury-status.js';
import { TOKENS } from '../../application/tokens.js';
import { ASSETS } from '../../domain/money/networks.js';
import type { BalanceReader } from '../../domain/transfers/ports.js';
import { defineCommand, type OpsCommand } from './command.js';
import { networkFlag } from './network-flag.js';

const policySet = defineCommand({
  path: ['sweep', 'policy'],
  positionals: ['action'],
  summary:
    'Set or show the sweep policy: sweep policy set --chain ETH_TESTNET --asset USDT_ETH --minimum 50 [--interval-seconds 600]; sweep policy show [--chain NETWORK] [--asset ASSET]',
  flags: { chain: { type: 'string' }, asset: { type: 'string' }, minimum: { type: 'string' }, 'interval-seconds': { type: 'string' } },
  input: (mode) =>
    z.discriminatedUnion('action', [
      z.object({
        action: z.literal('set'),
        chain: networkFlag(mode.side),
        asset: z.enum(ASSETS),
        minimum: z.string({ error: '--minimum is required (a decimal amount of the asset, e.g. 50)' }),
        'interval-seconds': z
          .string()
          .regex(/^(0|[1-9]\d{0,5})$/, 'must be a whole number of seconds, 0 to 604800 (a week)')
          .transform(Number)
          .pipe(z.number().max(604_800, 'must be a whole number of seconds, 0 to 604800 (a week)'))
          .default(0),
      }),
      z.object({ action: z.literal('show'), chain: networkFlag(mode.side).optional(), asset: z.enum(ASSETS).optional() }),
    ]),
  async run(ctx, input) {
    const manage = ctx.resolve(ManageSweepPolicy);
    if (input.action === 'show') return { policies: (await manage.show(input.chain)).filter((p) => !input.asset || p.asset === input.asset) };
    return manage.set({ network: input.chain, asset: input.asset, minimum: input.minimum, intervalSeconds: input['interval-seconds'] }) as unknown as Promise<
      Record<string, unknown>
    >;
  },
  describe: (r) =>
    Array.isArray(r.policies)
      ? (r.policies as { chain: string; asset: string; minimum: string; interval_seconds: number }[])
          .map((p) => `${p.chain} ${p.asset}: minimum ${p.minimum}, ${p.interval_seconds ? `at most every ${p.interval_seconds} s` : 'as soon as reached'}`)
          .join('\n')
      : `${String(r.chain)} ${String(r.asset)}: minimum ${String(r.minimum)}, ${r.interval_seconds ? `at most every ${String(r.interval_seconds)} s` : 'as soon as reached'}`,
});

const treasuryStatus = defineCommand({
  path: ['treasury', 'status'],
  readsNodes: true,
  slow: true,
  summary: 'The treasury, gas tank and faucet dispenser of each network with their balances on the node [--chain NETWORK]',
  flags: { chain: { type: 'string' } },
  input: (mode) => z.object({ chain: networkFlag(mode.side).optional() }),
  async run(ctx, input) {
    const readers = ctx.resolve<BalanceReader[]>(TOKENS.BalanceReaders);
    return { networks: await ctx.resolve(TreasuryStatus).execute(readers, input.chain) };
  },
  describe: (r) =>
    (r.networks as NetworkTreasuryStatus[])
      .map((n) =>
        [
          `${n.network}`,
          ...(['treasury', 'gas_tank', 'faucet_dispenser'] as const).map(
            (k) => `  ${k.padEnd(17)}${n[k].address}  ${n[k].balances ? JSON.stringify(n[k].balances) : n.node ? `(the node did not answer: ${n.error ?? ''})` : '(no node configured)'}`,
          ),
          ...(n.custody ?? []).map(
            (c) =>
              `  custody ${c.asset}: hot ${c.hot ?? '?'} (float ${c.target_float}, floor ${c.floor}, ceiling ${c.ceiling}), reserved for withdrawals ${c.reserved}, cold ${c.cold_booked} booked at ${c.cold_address ?? '(none in force)'}, in transit ${c.in_transit}` +
              (c.refill_needed !== null && /[1-9]/.test(c.refill_needed) ? `\n    REFILL NEEDED: send ${c.refill_needed} ${c.asset} from the cold address` : '') +
              (c.pending_cold_address ? `\n    cold address change pending: ${c.pending_cold_address}` : ''),
          ),
        ].join('\n'),
      )
      .join('\n'),
});

export const SWEEP_COMMANDS: OpsCommand[] = [policySet, treasuryStatus];
