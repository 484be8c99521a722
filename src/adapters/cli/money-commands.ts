// ops fees tier set|list, fees override set|clear and ledger check
// (docs/operations.md#fee-schedule, #ledger-reconciliation).
import { z } from 'zod';
import { ManageFeeSchedule } from '../../application/fees/manage-fee-schedule.js';
import { CheckLedger } from '../../application/ledger/check-ledger.js';
import type { FeeTier } from '../../domain/fees/fee-schedule.js';
import { Amount } from '../../domain/money/amount.js';
import { formatRate, parseRate } from '../../domain/money/rate.js';
import { defineCommand, type OpsCommand } from './command.js';

const presentTier = (t: FeeTier) => ({
  name: t.name,
  min_volume_usd: Amount.ofUnits('USDT_ETH', t.minVolumeUsd).toString(),
  deposit_rate: formatRate(t.depositRatePpm),
});

export const MONEY_COMMANDS: OpsCommand[] = [
  defineCommand({
    path: ['fees', 'tier'],
    summary: 'Fee tiers: `fees tier list`, or `fees tier set --name N --min-volume USD --rate 0.009`',
    flags: { name: { type: 'string' }, 'min-volume': { type: 'string' }, rate: { type: 'string' } },
    positionals: ['action'],
    input: z.union([
      z.object({ action: z.literal('list') }),
      z.object({
        action: z.literal('set'),
        name: z.string().regex(/^[A-Z][A-Z0-9_]{0,31}$/, 'an upper-case name such as GROWTH'),
        'min-volume': z.string(),
        rate: z.string(),
      }),
    ]),
    async run(ctx, input) {
      const fees = ctx.resolve(ManageFeeSchedule);
      if (input.action === 'list') return { tiers: (await fees.listTiers()).map(presentTier) };
      const tiers = await fees.setTier({
        name: input.name,
        minVolumeUsd: Amount.parse(input['min-volume'], 'USDT_ETH', 'min-volume', { allowZero: true }).units,
        depositRatePpm: parseRate(input.rate, 'rate'),
      });
      return { tiers: tiers.map(presentTier) };
    },
  }),
  defineCommand({
    path: ['fees', 'override'],
    summary: 'Per-workspace override: `fees override set --workspace ID --rate 0.004 --expires-at T` or `fees override clear --workspace ID`',
    flags: { workspace: { type: 'string' }, rate: { type: 'string' }, 'expires-at': { type: 'string' } },
    positionals: ['action'],
    input: z.union([
      z.object({ action: z.literal('clear'), workspace: z.uuid() }),
      z.object({ action: z.literal('set'), workspace: z.uuid(), rate: z.string(), 'expires-at': z.iso.datetime({ offset: true }) }),
    ]),
    async run(ctx, input) {
      const fees = ctx.resolve(ManageFeeSchedule);
      if (input.action === 'clear') return { workspace_id: input.workspace, cleared: await fees.clearOverride(input.workspace) };
      const o = await fees.setOverride({
        workspaceId: input.workspace,
        depositRatePpm: parseRate(input.rate, 'rate'),
        expiresAt: new Date(input['expires-at']),
      });
      return { workspace_id: o.workspaceId, deposit_rate: formatRate(o.depositRatePpm), expires_at: o.expiresAt.toISOString() };
    },
  }),
  defineCommand({
    path: ['ledger', 'check'],
    slow: true,
    summary:
      'Reconcile the ledger: every entry balances, cached balances equal the entries, and per network and asset customers are owed no more than the service holds hot, cold and in transit to cold (exit 1 on any difference)',
    flags: {},
    input: z.object({}),
    async run(ctx) {
      const r = await ctx.resolve(CheckLedger).execute();
      return {
        ok: r.ok,
        entries: r.entries,
        accounts: r.accounts,
        unbalanced_entries: r.unbalancedEntries,
        balance_mismatches: r.balanceMismatches.map((m) => ({ account: m.account, cached: m.cached, from_entries: m.fromEntries })),
        negative_balances: r.negativeBalances,
        custody: r.custody.map((c) => ({
          chain: c.network,
          asset: c.asset,
          customers: c.customers,
          hot: c.hot,
          cold: c.cold,
          in_transit: c.inTransit,
          faucet: c.faucet,
          service: c.service,
          covered: c.covered,
          gas_currency: c.gasCurrency,
        })),
      };
    },
  }),
];
