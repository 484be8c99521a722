// POST /v2/fees/quote (docs/api.md#fee-quotes). Unknown request fields
// are refused (VALIDATION_ERROR), as everywhere in this API. All monetary
// fields carry the asset's places; rates are fractions with 6 places.
import { z } from 'zod';
import { QuoteFee } from '../../application/fees/quote-fee.js';
import { Amount } from '../../domain/money/amount.js';
import { ASSETS, BASE_CHAINS } from '../../domain/money/networks.js';
import { principalOf } from './authenticate.js';
import { parse } from './validation.js';
import { amountString, asset, rateString, resolvedChain } from './common-schemas.js';
import { EXAMPLES } from './examples.js';
import type { Resource } from './route.js';
import { anyReadScope } from '../../domain/auth/principal.js';

export const body = z.strictObject({
  direction: z.enum(['deposit', 'withdrawal']),
  chain: z.enum(BASE_CHAINS),
  asset: z.enum(ASSETS),
  // Parsed as an Amount below (docs/api.md#amounts); the length cap keeps absurd input cheap.
  amount: z.string().max(64, 'is too long').meta({ description: "A positive decimal string with at most the asset's places", example: '250' }),
  mode: z.enum(['charge', 'gross_up']).default('charge'),
});

export const feeQuoteSchema = z
  .strictObject({
    direction: z.enum(['deposit', 'withdrawal']),
    chain: resolvedChain,
    asset,
    mode: z.enum(['charge', 'gross_up']),
    fee_basis: z.enum(['gross', 'net']).meta({ description: 'What amount is: gross in charge mode, net in gross_up mode' }),
    amount: amountString,
    gross: amountString,
    net: amountString.nullable().meta({ description: 'gross − fee; null when not viable' }),
    fee: amountString,
    effective_rate: rateString,
    applied_rate: rateString,
    min_fee: amountString.optional().meta({ description: 'Deposits only' }),
    flat_fee: amountString.optional().meta({ description: 'Withdrawals only' }),
    rule: z.enum(['PERCENTAGE', 'MIN_FEE', 'FLAT', 'OVERRIDE']),
    override_applied: z.boolean(),
    tier: z.string().nullable(),
    viable: z.boolean(),
    indicative: z.literal(true),
    // Open: new warnings are added over time, and clients treat unknown ones leniently.
    warnings: z.array(z.string()).meta({ description: 'Advisory codes, in order: BELOW_SWEEP_MINIMUM, MIN_FEE_DOMINATES, AMOUNT_TOO_SMALL, OVERRIDE_EXPIRES_SOON; more may come' }),
  })
  .meta({ id: 'FeeQuote', examples: [EXAMPLES.feeQuote] });

export const feesResource: Resource<{ quoteFee: QuoteFee }> = {
  mount: '/fees',
  tag: 'Fees',
  deps: (resolve) => ({ quoteFee: resolve(QuoteFee) }),
  routes: [
    {
      operationId: 'quoteFee',
      summary: 'An indicative fee for a deposit or a withdrawal, from the engine that settles',
      method: 'post',
      path: '/quote',
      access: anyReadScope,
      request: { body },
      responses: { 200: { description: 'The quote (viable or not)', schema: feeQuoteSchema } },
      errors: [],
      handle: (deps) => async (req, res) => {
        const input = parse(body, req.body);
        const amount = Amount.parse(input.amount, input.asset, 'amount');
        const { network, quote: q } = await deps.quoteFee.execute(principalOf(res), {
          direction: input.direction,
          chain: input.chain,
          amount,
          mode: input.mode,
        });
        const c = q.charge;
        const view: z.infer<typeof feeQuoteSchema> = {
          direction: q.direction,
          chain: network,
          asset: amount.asset,
          mode: q.mode,
          fee_basis: q.feeBasis,
          amount: q.amount.toString(),
          gross: c.gross.toString(),
          net: q.viable ? c.net.toString() : null,
          fee: c.fee.toString(),
          effective_rate: q.effectiveRate,
          applied_rate: q.appliedRate,
          ...(q.direction === 'deposit' ? { min_fee: c.minFee!.toString() } : { flat_fee: c.flatFee!.toString() }),
          rule: c.rule,
          override_applied: c.overrideApplied,
          tier: c.tier,
          viable: q.viable,
          indicative: true,
          warnings: q.warnings,
        };
        res.json(view);
      },
    },
  ],
};
