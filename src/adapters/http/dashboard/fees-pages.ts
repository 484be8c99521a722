// Fees and the monthly commitment (issue 32, ADR 0033): what GET
// /v2/commitment shows (the commitment, the month so far, the last twelve
// adjustments, what is owed), a chart of the fees billed through the month
// against the prorated floor, and the fee schedule the workspace is on for
// the chosen side. Reads only, through the API's use cases as the member's
// principal; a workspace without a commitment sees its fees and schedule.
import { z } from 'zod';
import { ReadFeeProgress } from '../../../application/commitments/read-fee-progress.js';
import { ReadCommitment, type CommitmentOverview } from '../../../application/commitments/read-commitment.js';
import { ShowFeeSchedule, type FeeScheduleView } from '../../../application/fees/show-fee-schedule.js';
import { memberPrincipal } from '../../../application/members/member-principal.js';
import { DomainError } from '../../../domain/errors.js';
import { formatUsd } from '../../../domain/commitments/commitment.js';
import { Amount, formatPlaces } from '../../../domain/money/amount.js';
import { ASSETS, type NetworkSide } from '../../../domain/money/networks.js';
import { lineChart } from './charts.js';
import type { Dashboard } from './dashboard.js';
import { html, table, when, type Html } from './html.js';
import { sideLabel } from './page-params.js';

const feesQuery = z.object({ side: z.enum(['live', 'test']).optional() });

/** A USD decimal string of the commitment view (always 6 places) back to 6-place units, for the chart. */
const usdUnits = (s: string): bigint => BigInt(s.replace('.', ''));
const percent = (ppm: bigint): string => `${formatPlaces(ppm, 4)} %`;
const date = (iso: string | null): string => (iso ? when(new Date(iso)) : '—');

function commitmentSection(o: CommitmentOverview, chart: Html): Html {
  const c = o.commitment;
  const p = o.current_period;
  if (!c) {
    return html`<h2>Monthly commitment</h2>
<p id="no-commitment">This workspace has no monthly fee commitment: there is no floor, and no catch-up is ever billed.</p>
${o.outstanding_total_usdt !== '0.000000' ? html`<p>Still owed from an earlier commitment: ${o.outstanding_total_usdt} USD.</p>` : ''}
${chart}`;
  }
  return html`<h2>Monthly commitment</h2>
<p>Each calendar month (UTC), the fees billed on mainnet stablecoins are compared with the floor, prorated by the days the commitment covered; a shortfall is billed as a catch-up adjustment.</p>
${table('The commitment', ['Setting', 'Value'], [
  ['Monthly floor', `${c.monthly_floor_usdt} USD`],
  ['Status', c.status],
  ['Settlement asset', c.settlement_asset],
  ['Shortfall debited automatically', c.auto_debit ? 'yes' : 'no'],
  ['Starts', date(c.starts_at)],
  ['Ends', c.ends_at ? date(c.ends_at) : 'open-ended'],
  ['Contract reference', c.contract_reference || '—'],
])}
${p
  ? table('This month so far (indicative)', ['Figure', 'USD'], [
      ['Prorated floor', p.prorated_floor_usdt],
      ['Billed fees', p.billed_fees_usdt],
      ['Remaining to the floor', p.remaining_to_floor_usdt],
      ['Projected by the month end', p.projected_fees_usdt],
      ['Days covered', `${p.days_covered} of ${p.days_in_month}`],
    ])
  : html`<p>The commitment does not cover this month.</p>`}
${chart}
${table(
  'Monthly adjustments, newest first',
  ['Month', 'Prorated floor', 'Billed', 'Shortfall', 'Debited', 'Outstanding', 'Status', 'Settled'],
  o.adjustments.map((a) => [a.period_start.slice(0, 7), a.prorated_floor_usdt, a.billed_fees_usdt, a.delta_usdt, a.debited_usdt, a.outstanding_usdt, a.status, date(a.settled_at)]),
)}
<p>Owed over every commitment: <strong>${o.outstanding_total_usdt} USD</strong>.</p>`;
}

function scheduleSection(s: FeeScheduleView, side: NetworkSide): Html {
  return html`<h2>Fee schedule: ${sideLabel(side)}</h2>
<p>Deposit rate applied now: <strong>${percent(s.depositRatePpm)}</strong>${s.override
    ? html`, an agreed rate in force until ${when(s.override.expiresAt)}`
    : html`, tier ${s.tier.name}`}. Confirmed volume over the last 30 days: ${formatUsd(s.volumeUsd)} USD.</p>
${table(
  'Deposit tiers by 30-day volume',
  ['Tier', 'From (USD)', 'Deposit rate', 'Yours'],
  s.tiers.map((t) => [t.name, formatUsd(t.minVolumeUsd), percent(t.depositRatePpm), t.name === s.tier.name && !s.override ? 'yes' : '']),
)}
${table(
  'Per asset',
  ['Asset', 'Minimum deposit fee', 'Withdrawal fee (flat)', 'Sweep minimum'],
  ASSETS.map((a) => {
    const f = s.assetFees[a];
    return [a, Amount.ofUnits(a, f.minDepositFee).toString(), Amount.ofUnits(a, f.withdrawalFlatFee).toString(), Amount.ofUnits(a, f.sweepMinimum).toString()];
  }),
)}
<p>A deposit pays the larger of the rate and the asset's minimum; a withdrawal pays the flat fee. Quotes: POST /v2/fees/quote.</p>`;
}

export function feesPages(d: Dashboard): void {
  const commitment = d.resolve(ReadCommitment);
  const progress = d.resolve(ReadFeeProgress);
  const schedule = d.resolve(ShowFeeSchedule);

  d.get('/fees', 'read', async ({ req, res, member }) => {
    const parsed = feesQuery.safeParse(req.query);
    if (!parsed.success) throw new DomainError('VALIDATION_ERROR', 'side must be live or test', [{ path: 'side', message: 'must be live or test' }]);
    const side = parsed.data.side ?? d.defaultSide;
    // The commitment counts mainnet fees only: it is read as a live principal whatever the side shown.
    const live = memberPrincipal(member, 'live');
    const overview = await commitment.execute(live);
    const month = await progress.execute(live);
    const floor = overview.current_period ? usdUnits(overview.current_period.prorated_floor_usdt) : null;
    const chart = lineChart({
      id: 'chart-fees',
      title: floor === null ? 'Fees billed this month (cumulative)' : 'Fees billed this month (cumulative) against the prorated floor',
      labels: month.days.map((x) => x.day),
      series: [
        { name: 'Billed fees (cumulative)', values: month.days.map((x) => x.billedUsd) },
        ...(floor === null ? [] : [{ name: 'Prorated floor', values: month.days.map(() => floor) }]),
      ],
      format: formatUsd,
      unit: 'USD',
    });
    const view = await schedule.execute(memberPrincipal(member, side));
    d.render(res, {
      title: 'Fees',
      member,
      current: 'fees',
      body: html`<nav aria-label="Networks"><p>Fee schedule of: ${(['live', 'test'] as const).map(
        (s) => html`<a href="/dashboard/fees?side=${s}"${s === side ? html` aria-current="page"` : ''}>${sideLabel(s)}</a> `,
      )}</p></nav>
${commitmentSection(overview, chart)}
${scheduleSection(view, side)}`,
    });
  });
}
