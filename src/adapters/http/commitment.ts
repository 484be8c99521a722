// GET /v2/commitment (fees:read, docs/api.md#fee-commitment): the workspace's
// monthly fee commitment, read-only (commitments are the operator's).
import { z } from 'zod';
import { ReadCommitment } from '../../application/commitments/read-commitment.js';
import { ADJUSTMENT_STATUSES, COMMITMENT_STATUSES, RECOVERY_MODES, SETTLEMENT_ASSETS } from '../../domain/commitments/commitment.js';
import { scope } from '../../domain/auth/principal.js';
import { principalOf } from './authenticate.js';
import { timestamp, uuid } from './common-schemas.js';
import type { Resource } from './route.js';

/** USD with 6 places. */
const usd = z.string().regex(/^\d{1,30}\.\d{6}$/).meta({ description: 'USD, a decimal string with 6 places', example: '5000.000000' });

export const adjustmentSchema = z
  .strictObject({
    id: uuid,
    period_start: timestamp,
    period_end: timestamp.meta({ description: 'Exclusive: the first instant of the next month (UTC)' }),
    prorated_floor_usdt: usd,
    billed_fees_usdt: usd,
    delta_usdt: usd.meta({ description: 'The shortfall billed as catch-up; 0.000000 when the floor was met' }),
    recovery_mode: z.enum(RECOVERY_MODES),
    debited_usdt: usd,
    outstanding_usdt: usd,
    status: z.enum(ADJUSTMENT_STATUSES),
    settled_at: timestamp.nullable(),
  })
  .meta({ id: 'CommitmentAdjustment' });

export const commitmentOverviewSchema = z
  .strictObject({
    commitment: z
      .strictObject({
        id: uuid,
        monthly_floor_usdt: usd,
        settlement_asset: z.enum(SETTLEMENT_ASSETS),
        starts_at: timestamp,
        ends_at: timestamp.nullable(),
        status: z.enum(COMMITMENT_STATUSES),
        auto_debit: z.boolean(),
        contract_reference: z.string(),
      })
      .nullable(),
    current_period: z
      .strictObject({
        period_start: timestamp,
        period_end: timestamp,
        days_covered: z.number().int(),
        days_in_month: z.number().int(),
        prorated_floor_usdt: usd,
        billed_fees_usdt: usd.meta({ description: 'Fees billed so far this month that count toward the floor' }),
        remaining_to_floor_usdt: usd,
        projected_fees_usdt: usd.meta({ description: 'Straight-line projection to the month end, indicative' }),
        indicative: z.boolean(),
      })
      .nullable()
      .meta({ description: 'null when the commitment does not cover the current calendar month' }),
    adjustments: z.array(adjustmentSchema).meta({ description: 'Newest first, at most the last twelve months' }),
    outstanding_total_usdt: usd.meta({ description: 'Everything still owed over every commitment of the workspace' }),
  })
  .meta({ id: 'CommitmentOverview' });

interface CommitmentDeps {
  read: ReadCommitment;
}

export const commitmentResource: Resource<CommitmentDeps> = {
  mount: '/commitment',
  tag: 'Fees',
  deps: (resolve) => ({ read: resolve(ReadCommitment) }),
  routes: [
    {
      operationId: 'getCommitment',
      summary: "The workspace's monthly fee commitment: the commitment, the current month so far, the last twelve adjustments and what is owed",
      method: 'get',
      path: '/',
      access: scope('fees:read'),
      responses: { 200: { description: 'The commitment overview (all null and empty when there is none)', schema: commitmentOverviewSchema } },
      errors: [],
      handle: (deps) => async (_req, res) => {
        const view: z.infer<typeof commitmentOverviewSchema> = await deps.read.execute(principalOf(res));
        res.json(view);
      },
    },
  ],
};
