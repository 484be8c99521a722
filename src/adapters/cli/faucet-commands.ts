// ops faucet set | show (docs/adr/0029-sandbox-faucet.md): the operator's
// faucet limits, per asset and for the whole faucet.
import { z } from 'zod';
import { ManageFaucetLimits, type FaucetLimitsView } from '../../application/faucet/manage-faucet-limits.js';
import { ASSETS } from '../../domain/money/networks.js';
import { defineCommand, type OpsCommand } from './command.js';

const count = (max: number) =>
  z
    .string()
    .regex(/^[1-9]\d{0,5}$/, `must be a whole number from 1 to ${max}`)
    .transform(Number)
    .pipe(z.number().max(max, `must be a whole number from 1 to ${max}`));

const describe = (r: Record<string, unknown>) => {
  const v = r as unknown as FaucetLimitsView;
  return [
    `at most ${v.max_items} assets a drip, ${v.drips_per_hour} drips an hour per workspace`,
    ...v.assets.map((a) => `${a.asset.padEnd(10)} default ${a.default_amount}, cap ${a.cap}${a.budget_24h ? `, ${a.budget_24h} a day` : ''}${a.configured ? '' : ' (default)'}`),
  ].join('\n');
};

export const FAUCET_COMMANDS: OpsCommand[] = [
  defineCommand({
    path: ['faucet', 'set'],
    summary:
      "Set the faucet's limits: faucet set --asset ETH [--default 0.01] [--cap 0.05] [--budget 0.1] (budget: native only), and/or [--max-items 5] [--drips-per-hour 20]",
    flags: { asset: { type: 'string' }, default: { type: 'string' }, cap: { type: 'string' }, budget: { type: 'string' }, 'max-items': { type: 'string' }, 'drips-per-hour': { type: 'string' } },
    input: z.object({
      asset: z.enum(ASSETS).optional(),
      default: z.string().optional(),
      cap: z.string().optional(),
      budget: z.string().optional(),
      'max-items': count(20).optional(),
      'drips-per-hour': count(100_000).optional(),
    }),
    async run(ctx, input) {
      return (await ctx.resolve(ManageFaucetLimits).set({
        asset: input.asset,
        defaultAmount: input.default,
        cap: input.cap,
        budget: input.budget,
        maxItems: input['max-items'],
        dripsPerHour: input['drips-per-hour'],
      })) as unknown as Record<string, unknown>;
    },
    describe,
  }),
  defineCommand({
    path: ['faucet', 'show'],
    summary: "Show the faucet's limits: per asset, and for the whole faucet",
    flags: {},
    input: z.object({}),
    async run(ctx) {
      return (await ctx.resolve(ManageFaucetLimits).show()) as unknown as Record<string, unknown>;
    },
    describe,
  }),
];
