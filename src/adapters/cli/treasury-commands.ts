// ops treasury policy set | show | cancel (issue 31, docs/operations.md#custody):
// the operator's cold address, ceiling, target float, floor and cooling-off per
// network and asset. A new cold address waits for the cooling-off in force.
import { z } from 'zod';
import { ManageTreasuryPolicy, type TreasuryPolicyView } from '../../application/custody/manage-treasury-policy.js';
import { ReconcileCold, type ColdReconciliation } from '../../application/custody/reconcile-cold.js';
import { TOKENS } from '../../application/tokens.js';
import type { BalanceReader } from '../../domain/transfers/ports.js';
import { MAX_COOLING_OFF_HOURS } from '../../domain/custody/treasury-policy.js';
import { ASSETS } from '../../domain/money/networks.js';
import { defineCommand, type OpsCommand } from './command.js';
import { networkFlag } from './network-flag.js';

const amount = (flag: string) => z.string({ error: `--${flag} is required (a decimal amount of the asset, e.g. 100)` }).max(100);

const describePolicy = (p: TreasuryPolicyView): string =>
  [
    `${p.chain} ${p.asset}: cold ${p.cold_address ?? '(none in force yet)'}, ceiling ${p.ceiling}, float ${p.target_float}, floor ${p.floor}, cooling-off ${p.cooling_off_hours} h`,
    ...(p.pending
      ? [`  PENDING: cold ${p.pending.cold_address} (cooling-off then ${p.pending.cooling_off_hours} h) takes effect at ${p.pending.effective_at} unless cancelled: ops treasury policy cancel --chain ${p.chain} --asset ${p.asset}`]
      : []),
  ].join('\n');

const policy = defineCommand({
  path: ['treasury', 'policy'],
  positionals: ['action'],
  summary:
    'Set, show or cancel the treasury policy: treasury policy set --chain ETH_MAINNET --asset USDT_ETH --cold-address 0x… --ceiling 100000 --float 50000 --floor 20000 [--cooling-off-hours 48]; treasury policy show [--chain NETWORK] [--asset ASSET]; treasury policy cancel --chain NETWORK --asset ASSET (a cold address change still waiting)',
  flags: {
    chain: { type: 'string' },
    asset: { type: 'string' },
    'cold-address': { type: 'string' },
    ceiling: { type: 'string' },
    float: { type: 'string' },
    floor: { type: 'string' },
    'cooling-off-hours': { type: 'string' },
  },
  input: (mode) =>
    z.discriminatedUnion('action', [
      z.object({
        action: z.literal('set'),
        chain: networkFlag(mode.side),
        asset: z.enum(ASSETS),
        'cold-address': z.string().max(200).optional(),
        ceiling: amount('ceiling'),
        float: amount('float'),
        floor: amount('floor'),
        'cooling-off-hours': z
          .string()
          .regex(/^(0|[1-9]\d{0,4})$/, `must be a whole number of hours, 0 to ${MAX_COOLING_OFF_HOURS}`)
          .transform(Number)
          .pipe(z.number().max(MAX_COOLING_OFF_HOURS, `must be a whole number of hours, 0 to ${MAX_COOLING_OFF_HOURS}`))
          .optional(),
      }),
      z.object({ action: z.literal('show'), chain: networkFlag(mode.side).optional(), asset: z.enum(ASSETS).optional() }),
      z.object({ action: z.literal('cancel'), chain: networkFlag(mode.side), asset: z.enum(ASSETS) }),
    ]),
  async run(ctx, input) {
    const manage = ctx.resolve(ManageTreasuryPolicy);
    if (input.action === 'show') return manage.show(input.chain, input.asset) as unknown as Promise<Record<string, unknown>>;
    if (input.action === 'cancel') return (await manage.cancel(input.chain, input.asset)) as unknown as Record<string, unknown>;
    return (await manage.set({
      network: input.chain,
      asset: input.asset,
      coldAddress: input['cold-address'],
      ceiling: input.ceiling,
      targetFloat: input.float,
      floor: input.floor,
      coolingOffHours: input['cooling-off-hours'],
    })) as unknown as Record<string, unknown>;
  },
  describe: (r) =>
    Array.isArray(r.policies)
      ? (r.policies as TreasuryPolicyView[]).map(describePolicy).join('\n') || 'no treasury policy is set: every treasury keeps all it holds hot'
      : describePolicy(r as unknown as TreasuryPolicyView),
});

const reconcile = defineCommand({
  path: ['treasury', 'reconcile'],
  readsNodes: true,
  slow: true,
  summary:
    "The cold addresses against the books: each one's balance read on the node and what the books hold cold (forwarded, less refilled); a shortfall exits 1, a surplus (received from elsewhere) is reported only [--chain NETWORK]",
  flags: { chain: { type: 'string' } },
  input: (mode) => z.object({ chain: networkFlag(mode.side).optional() }),
  async run(ctx, input) {
    const readers = ctx.resolve<BalanceReader[]>(TOKENS.BalanceReaders);
    return (await ctx.resolve(ReconcileCold).execute(readers, input.chain)) as unknown as Record<string, unknown>;
  },
  describe: (r) =>
    (r.cold as ColdReconciliation[])
      .map(
        (c) =>
          `${c.chain} ${c.asset} at ${c.cold_address}: booked ${c.booked} (in transit ${c.in_transit}), on chain ${c.on_chain ?? '?'}: ${c.verdict.toUpperCase()}` +
          (c.difference !== null && c.verdict !== 'ok' ? ` (${c.difference})` : '') +
          (c.why ? `: ${c.why}` : ''),
      )
      .join('\n') || 'no cold address is in force',
});

export const TREASURY_COMMANDS: OpsCommand[] = [policy, reconcile];
