// POST /v2/fees/quote (docs/api.md#fee-quotes). Unknown request fields
// are refused (VALIDATION_ERROR), as everywhere in this API. All monetary
// fields carry the asset's places; rates are fractions with 6 places.
import { z } from 'zod';
import type { QuoteFee } from '../../application/fees/quote-fee.js';
import { Amount } from '../../domain/money/amount.js';
import { ASSETS, BASE_CHAINS } from '../../domain/money/networks.js';
import { principalOf } from './authenticate.js';
import { parse } from './validation.js';
import type { RouteSpec } from './route.js';
import { anyReadScope } from '../../domain/auth/principal.js';

const body = z.strictObject({
  direction: z.enum(['deposit', 'withdrawal']),
  chain: z.enum(BASE_CHAINS),
  asset: z.enum(ASSETS),
  // Parsed as an Amount below (docs/api.md#amounts); the length cap keeps absurd input cheap.
  amount: z.string().max(64, 'is too long'),
  mode: z.enum(['charge', 'gross_up']).default('charge'),
});

export function feeRoutes(quoteFee: QuoteFee): RouteSpec[] {
  return [{ method: 'post', path: '/quote', access: anyReadScope, handler: async (req, res) => {
    const input = parse(body, req.body);
    const amount = Amount.parse(input.amount, input.asset, 'amount');
    const { network, quote: q } = await quoteFee.execute(principalOf(res), {
      direction: input.direction,
      chain: input.chain,
      amount,
      mode: input.mode,
    });
    const c = q.charge;
    res.json({
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
    });
  } }];
}
