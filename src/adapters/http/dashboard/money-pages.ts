// Money (issue 32, ADR 0033): the balances per network and asset with a
// chart of the last 30 days, the deposits and the withdrawals with the API's
// filters and pages, and one deposit's or withdrawal's timeline with its
// transaction id. Every read goes through the API's own use cases as the
// member's principal on the chosen side (live: mainnets, test: testnets), and
// every query string is validated as the API validates it: a value the API
// refuses is a 400 page, another workspace's record or a malformed id a 404.
import type { Response } from 'express';
import { z } from 'zod';
import { BalanceHistory } from '../../../application/balances/balance-history.js';
import { GetBalances } from '../../../application/balances/get-balances.js';
import { depositTimeline, type TimelineStep } from '../../../application/deposits/deposit-timeline.js';
import { ReadDeposits } from '../../../application/deposits/read-deposits.js';
import { memberPrincipal } from '../../../application/members/member-principal.js';
import { ReadWithdrawals } from '../../../application/withdrawals/read-withdrawals.js';
import { ReadWithdrawalTimeline } from '../../../application/withdrawals/withdrawal-timeline.js';
import { DomainError } from '../../../domain/errors.js';
import type { SignedInMember } from '../../../domain/members/session.js';
import { Amount } from '../../../domain/money/amount.js';
import { networksOfSide, type NetworkSide } from '../../../domain/money/networks.js';
import type { Page } from '../../../domain/pagination.js';
import { WITHDRAWAL_STATUSES } from '../../../domain/withdrawals/withdrawal.js';
import { chainFilter, resolveChainFilter } from '../chain-filter.js';
import { depositSchema } from '../deposits.js';
import { pageQuery } from '../pagination.js';
import { withdrawalListQuery } from '../withdrawals.js';
import { lineChart } from './charts.js';
import type { Dashboard } from './dashboard.js';
import { html, table, when, type Html } from './html.js';
import { sideLabel } from './page-params.js';

/** The side asked for; absent, the dashboard's default (test in the sandbox, live otherwise). */
const side = z.enum(['live', 'test']).optional();
const lowerUuid = z.uuid().transform((id) => id.toLowerCase());
/** GET /v2/transactions/deposits's query, and the side. */
const depositQuery = pageQuery.extend({
  side,
  status: depositSchema.shape.status.optional(),
  chain: chainFilter,
  wallet_id: lowerUuid.optional(),
  customer_id: lowerUuid.optional(),
});
/** GET /v2/withdrawals's query, and the side. */
const withdrawalQuery = withdrawalListQuery.extend({ side });
const sideQuery = z.object({ side });
/** A detail page is reached without a side too (the approvals page links here): it looks on both. */
const detailQuery = z.object({ side: z.enum(['live', 'test']).optional() });
const DEPOSIT_STATUSES = depositSchema.shape.status.options;

/** The query validated as the API does; an empty field of the filter form means "any". A refusal is VALIDATION_ERROR: a 400 page. */
function query<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const fields = Object.fromEntries(Object.entries((raw ?? {}) as Record<string, unknown>).filter(([, v]) => v !== ''));
  const r = schema.safeParse(fields);
  if (r.success) return r.data;
  const details = r.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
  throw new DomainError('VALIDATION_ERROR', `Check the filters: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`, details);
}

const money = (asset: Amount['asset'], units: bigint): string => Amount.ofUnits(asset, units).toString();
const href = (path: string, params: Record<string, unknown>): string => {
  const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== '').map(([k, v]): [string, string] => [k, String(v)]));
  return `/dashboard${path}?${q.toString()}`;
};

const sideSwitch = (path: string, current: NetworkSide): Html =>
  html`<nav aria-label="Networks"><p>Showing: ${(['live', 'test'] as const).map(
    (s) => html`<a href="${href(path, { side: s })}"${s === current ? html` aria-current="page"` : ''}>${sideLabel(s)}</a> `,
  )}</p></nav>`;

const moneyNav = (s: NetworkSide): Html =>
  html`<p><a href="${href('/money', { side: s })}">Balances</a> · <a href="${href('/money/deposits', { side: s })}">Deposits</a> · <a href="${href('/money/withdrawals', { side: s })}">Withdrawals</a></p>`;

function pager(path: string, filters: Record<string, unknown>, p: Page<unknown>): Html {
  const pages = Math.max(1, Math.ceil(p.total / p.limit));
  return html`<nav aria-label="Pages"><p>Page ${p.page} of ${pages} (${p.total} in all).
${p.page > 1 ? html`<a href="${href(path, { ...filters, page: Math.min(p.page - 1, pages), limit: p.limit })}" rel="prev">Previous page</a>` : ''}
${p.page < pages ? html`<a href="${href(path, { ...filters, page: p.page + 1, limit: p.limit })}" rel="next">Next page</a>` : ''}</p></nav>`;
}

const select = (id: string, name: string, label: string, options: readonly string[], chosen: string | undefined): Html =>
  html`<label for="${id}">${label}</label><select id="${id}" name="${name}"><option value="">Any</option>${options.map(
    (o) => html`<option${o === chosen ? html` selected` : ''}>${o}</option>`,
  )}</select>`;

const limitField = (limit: number): Html =>
  html`<label for="f-limit">Per page</label><select id="f-limit" name="limit">${[20, 50, 100].map((n) => html`<option${n === limit ? html` selected` : ''}>${n}</option>`)}</select>`;

const timeline = (steps: TimelineStep[]): Html =>
  html`<h2>Timeline</h2><ol class="timeline">${steps.map(
    (s) => html`<li><time datetime="${s.at.toISOString()}">${when(s.at)}</time>: <strong>${s.label}</strong>${s.detail ? html` (${s.detail})` : ''}</li>`,
  )}</ol>`;

/** The sides to look on for one record: the one asked for, else live then test. */
const sidesFor = (asked: NetworkSide | undefined): NetworkSide[] => (asked ? [asked] : ['live', 'test']);

async function onEitherSide<T>(member: SignedInMember, asked: NetworkSide | undefined, read: (side: NetworkSide) => Promise<T>): Promise<{ side: NetworkSide; found: T }> {
  const sides = sidesFor(asked);
  for (const [i, s] of sides.entries()) {
    try {
      return { side: s, found: await read(s) };
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'NOT_FOUND') || i === sides.length - 1) throw err;
    }
  }
  throw new DomainError('NOT_FOUND', 'Not found');
}

export function moneyPages(d: Dashboard): void {
  const balances = d.resolve(GetBalances);
  const history = d.resolve(BalanceHistory);
  const deposits = d.resolve(ReadDeposits);
  const withdrawals = d.resolve(ReadWithdrawals);
  const withdrawalTimeline = d.resolve(ReadWithdrawalTimeline);
  const render = (res: Response, member: SignedInMember, title: string, body: Html) => d.render(res, { title, member, current: 'money', body });

  d.get('/money', 'read', async ({ req, res, member }) => {
    const q = query(sideQuery, req.query);
    const qs = q.side ?? d.defaultSide;
    const principal = memberPrincipal(member, qs);
    const rows = await balances.execute(principal, {});
    const series = (await history.execute(principal)).filter((s) => s.points.some((p) => p.total !== 0n));
    render(
      res,
      member,
      'Money',
      html`${sideSwitch('/money', qs)}${moneyNav(qs)}
<h2>Balances</h2>
${table(
  `Balances on ${sideLabel(qs)}`,
  ['Chain', 'Asset', 'Available', 'Locked', 'Total'],
  rows.map((b) => [b.network, b.asset, money(b.asset, b.available), money(b.asset, b.locked), money(b.asset, b.available + b.locked)]),
)}
<h2>The last 30 days</h2>
${series.length === 0
  ? html`<p class="empty">No balance in the last 30 days.</p>`
  : series.map((s) =>
      lineChart({
        id: `chart-${s.network}-${s.asset}`,
        title: `${s.asset} on ${s.network}, total at the end of each day`,
        labels: s.points.map((p) => p.day),
        series: [{ name: 'Total (available + locked)', values: s.points.map((p) => p.total) }],
        format: (v) => money(s.asset, v),
        unit: s.asset,
      }),
    )}`,
    );
  });

  d.get('/money/deposits', 'read', async ({ req, res, member }) => {
    const q = query(depositQuery, req.query);
    const qs = q.side ?? d.defaultSide;
    const principal = memberPrincipal(member, qs);
    const page = await deposits.list(
      principal,
      { status: q.status, network: resolveChainFilter(q.chain, qs), walletId: q.wallet_id, customerId: q.customer_id },
      { page: q.page, limit: q.limit },
    );
    const filters = { side: qs, status: q.status, chain: q.chain, wallet_id: q.wallet_id, customer_id: q.customer_id };
    render(
      res,
      member,
      'Deposits',
      html`${sideSwitch('/money/deposits', qs)}${moneyNav(qs)}
<form method="get" action="/dashboard/money/deposits" class="card" id="deposit-filters"><h2>Filter</h2>
<input type="hidden" name="side" value="${qs}">
${select('f-status', 'status', 'Status', DEPOSIT_STATUSES, q.status)}
${select('f-chain', 'chain', 'Chain', networksOfSide(qs), q.chain)}
<label for="f-wallet">Wallet id</label><input id="f-wallet" name="wallet_id" maxlength="36" value="${q.wallet_id ?? ''}">
<label for="f-customer">Customer id</label><input id="f-customer" name="customer_id" maxlength="36" value="${q.customer_id ?? ''}">
${limitField(q.limit)}
<button type="submit">Show</button></form>
${table(
  'Deposits, newest first',
  ['Deposit', 'Chain', 'Amount', 'Status', 'Confirmations', 'Transaction id', 'Detected'],
  page.data.map((x) => [
    html`<a href="${href(`/money/deposits/${x.id}`, { side: qs })}"><code>${x.id}</code></a>`,
    x.network,
    `${money(x.asset, x.amount)} ${x.asset}`,
    x.status,
    `${x.confirmations} of ${x.requiredConfirmations}`,
    html`<code>${x.txid}</code>`,
    when(x.detectedAt),
  ]),
)}
${pager('/money/deposits', filters, page)}`,
    );
  });

  d.get('/money/withdrawals', 'read', async ({ req, res, member }) => {
    const q = query(withdrawalQuery, req.query);
    const qs = q.side ?? d.defaultSide;
    const principal = memberPrincipal(member, qs);
    const page = await withdrawals.list(principal, 'withdrawals:read', { status: q.status, network: resolveChainFilter(q.chain, qs) }, { page: q.page, limit: q.limit });
    const filters = { side: qs, status: q.status, chain: q.chain };
    render(
      res,
      member,
      'Withdrawals',
      html`${sideSwitch('/money/withdrawals', qs)}${moneyNav(qs)}
<form method="get" action="/dashboard/money/withdrawals" class="card" id="withdrawal-filters"><h2>Filter</h2>
<input type="hidden" name="side" value="${qs}">
${select('f-status', 'status', 'Status', WITHDRAWAL_STATUSES, q.status)}
${select('f-chain', 'chain', 'Chain', networksOfSide(qs), q.chain)}
${limitField(q.limit)}
<button type="submit">Show</button></form>
${table(
  'Withdrawals, newest request first',
  ['Withdrawal', 'Chain', 'Amount', 'Fee', 'Status', 'To', 'Transaction id', 'Requested'],
  page.data.map((w) => [
    html`<a href="${href(`/money/withdrawals/${w.id}`, { side: qs })}"><code>${w.id}</code></a>`,
    w.network,
    `${money(w.asset, w.amount)} ${w.asset}`,
    money(w.asset, w.fee),
    w.status,
    html`<code>${w.destination}</code>`,
    w.txid ? html`<code>${w.txid}</code>` : '—',
    when(w.requestedAt),
  ]),
)}
${pager('/money/withdrawals', filters, page)}`,
    );
  });

  d.get('/money/deposits/:id', 'read', async ({ req, res, member }) => {
    const q = query(detailQuery, req.query);
    const { side: s, found: x } = await onEitherSide(member, q.side, (s) => deposits.get(memberPrincipal(member, s), String(req.params.id)));
    render(
      res,
      member,
      'Deposit',
      html`${moneyNav(s)}
${table('The deposit', ['Field', 'Value'], [
  ['Id', html`<code>${x.id}</code>`],
  ['Status', x.status],
  ['Chain', x.network],
  ['Amount', `${money(x.asset, x.amount)} ${x.asset}`],
  ['Fee', x.fee ? money(x.asset, x.fee.feeAmount) : '—'],
  ['Credited (net)', x.fee ? money(x.asset, x.fee.netAmount) : '—'],
  ['Transaction id', html`<code id="txid">${x.txid}</code>`],
  ['Block', String(x.blockNumber)],
  ['Confirmations', `${x.confirmations} of ${x.requiredConfirmations}`],
  ['From', html`<code>${x.fromAddress}</code>`],
  ['To', html`<code>${x.toAddress}</code>`],
  ['Wallet', html`<code>${x.walletId}</code>`],
])}
${timeline(depositTimeline(x))}`,
    );
  });

  d.get('/money/withdrawals/:id', 'read', async ({ req, res, member }) => {
    const q = query(detailQuery, req.query);
    const { side: s, found } = await onEitherSide(member, q.side, (s) => withdrawalTimeline.execute(memberPrincipal(member, s), String(req.params.id)));
    const w = found.withdrawal;
    render(
      res,
      member,
      'Withdrawal',
      html`${moneyNav(s)}
${table('The withdrawal', ['Field', 'Value'], [
  ['Id', html`<code>${w.id}</code>`],
  ['Status', w.status],
  ['Chain', w.network],
  ['Amount', `${money(w.asset, w.amount)} ${w.asset}`],
  ['Fee', money(w.asset, w.fee)],
  ['Sent (net)', money(w.asset, w.netAmount)],
  ['To', html`<code>${w.destination}</code>`],
  ['Transaction id', w.txid ? html`<code id="txid">${w.txid}</code>` : 'not broadcast yet'],
  ...(w.failure ? [['Failure', w.failure] as [string, string]] : []),
])}
${timeline(found.steps)}`,
    );
  });
}
