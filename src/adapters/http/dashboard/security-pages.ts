// Withdrawal security and approvals (issue 32, ADR 0033). The security page
// shows the mainnet policy, the allowlist and the per-chain beneficiaries with
// each one's cooling-off; every change asks for the second factor again and
// goes through the use cases `ops policy set` and `ops beneficiary add|remove`
// call, which publish the owner events. The approvals page lists withdrawals
// waiting for approval, with who approved so far against the quorum.
import { z } from 'zod';
import { DecideWithdrawal } from '../../../application/members/decide-withdrawal.js';
import { memberPrincipal } from '../../../application/members/member-principal.js';
import { AddBeneficiary, RemoveBeneficiary } from '../../../application/security/manage-beneficiaries.js';
import { SetWithdrawalPolicy } from '../../../application/security/set-withdrawal-policy.js';
import { ShowWithdrawalPolicy } from '../../../application/security/show-withdrawal-policy.js';
import { ReadWithdrawals } from '../../../application/withdrawals/read-withdrawals.js';
import { TOKENS } from '../../../application/tokens.js';
import { may } from '../../../domain/members/member.js';
import { networksOfSide } from '../../../domain/money/networks.js';
import { Amount } from '../../../domain/money/amount.js';
import type { UnitOfWork } from '../../../domain/ports.js';
import { isPolicyAmount } from '../../../domain/security/policy-amount.js';
import { QUORUM_MAX } from '../../../domain/security/withdrawal-policy.js';
import { COOLING_OFF_HOURS_MAX } from '../../../application/security/set-withdrawal-policy.js';
import type { Dashboard } from './dashboard.js';
import { codeField, csrfField, html, table, when } from './html.js';

const DONE: Record<string, string> = {
  policy: 'Saved. WITHDRAWAL_POLICY_CHANGED was sent to your webhook endpoints.',
  unchanged: 'Nothing changed.',
  'allowlist-added': 'Address allowed. WITHDRAWAL_POLICY_CHANGED was sent to your webhook endpoints.',
  'allowlist-removed': 'Address removed from the allowlist. WITHDRAWAL_POLICY_CHANGED was sent.',
  'beneficiary-added': 'Beneficiary added. BENEFICIARY_ADDED was sent to your webhook endpoints.',
  'beneficiary-removed': 'Beneficiary removed. BENEFICIARY_REMOVED was sent to your webhook endpoints.',
  approved: 'Approved. It proceeds once the quorum is met.',
  paid: 'Approved: the quorum is met and the withdrawal proceeds.',
  rejected: 'Rejected: the withdrawal is cancelled.',
};

/** A field left empty (or not sent) keeps the setting. */
const doneMessage = (key: unknown): string | undefined => (typeof key === 'string' && Object.hasOwn(DONE, key) ? DONE[key] : undefined);

/** A field left empty (or not sent) keeps the setting. */
const optionalAmount = z
  .string()
  .trim()
  .optional()
  .refine((s) => !s || isPolicyAmount(s), 'a positive decimal, e.g. 1000 or 2500.5')
  .transform((s) => (s ? s : undefined));
const optionalWhole = (max: number, min: number) =>
  z
    .string()
    .trim()
    .optional()
    .refine((s) => !s || (/^\d{1,5}$/.test(s) && Number(s) >= min && Number(s) <= max), `a whole number from ${min} to ${max}`)
    .transform((s) => (s ? Number(s) : undefined));
const policyForm = z.object({
  per_tx_limit: optionalAmount,
  daily_limit: optionalAmount,
  approval_above: optionalAmount,
  approval_quorum: optionalWhole(QUORUM_MAX, 1),
  cooling_off_hours: optionalWhole(COOLING_OFF_HOURS_MAX, 0),
});
const MAINNETS = ['ETH_MAINNET', 'BSC_MAINNET', 'TRON_MAINNET'] as const;
const addressForm = z.object({ address: z.string().trim().min(1).max(200) });
const beneficiaryForm = z.object({ chain: z.enum(MAINNETS), address: z.string().trim().min(1).max(200) });
const idParam = z.uuid();

export function securityPages(d: Dashboard): void {
  const show = d.resolve(ShowWithdrawalPolicy);
  const setPolicy = d.resolve(SetWithdrawalPolicy);
  const add = d.resolve(AddBeneficiary);
  const remove = d.resolve(RemoveBeneficiary);
  const decide = d.resolve(DecideWithdrawal);
  const reads = d.resolve(ReadWithdrawals);
  const uow = d.resolve<UnitOfWork>(TOKENS.UnitOfWork);

  d.get('/security', 'read', async ({ req, res, member }) => {
    const r = await show.execute(member.workspaceId);
    const p = r.policy;
    const manage = may(member.role, 'manage');
    const allowlist = r.destinations.filter((x) => x.beneficiary.chain === null);
    const beneficiaries = r.destinations.filter((x) => x.beneficiary.chain !== null);
    const coolingOff = (ends: Date | null) => (ends === null ? 'none' : ends.getTime() > Date.now() ? `until ${when(ends)}` : `ended ${when(ends)}`);
    const removeButton = (action: string, fields: Record<string, string>, label: string) =>
      manage
        ? html`<form method="post" action="/dashboard/security/${action}" class="inline">${csrfField(member)}${Object.entries(fields).map(
            ([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`,
          )}<label class="visually-hidden" for="code-${action}-${fields.address}">Code</label><input id="code-${action}-${fields.address}" name="code" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" required maxlength="32" placeholder="code" aria-label="Authenticator code to remove ${fields.address}"><button type="submit" class="danger">${label}</button></form>`
        : '';
    d.render(res, {
      title: 'Withdrawal security',
      member,
      current: 'security',
      notice: doneMessage(req.query.done),
      body: html`<p>These rules apply to withdrawals on mainnets (live keys). Last changed: ${when(r.updatedAt)}.</p>
${table('Settings', ['Setting', 'Value'], [
  ['Per-transaction limit', p.per_tx_limit ?? 'none'],
  ['24-hour limit', p.daily_limit ?? 'none'],
  ['Approval needed above', p.approval_above ?? 'never'],
  ['Approvals needed (quorum)', String(p.approval_quorum)],
  ['Cooling-off of a new destination (hours)', p.cooling_off_hours === null ? 'none' : String(p.cooling_off_hours)],
])}
${manage
  ? html`<form method="post" action="/dashboard/security/policy" class="card" id="policy-form"><h2>Change the rules</h2>${csrfField(member)}
<p>Leave a field empty to keep it. Amounts are in the withdrawn asset's units (stablecoins count 1:1 as USD).</p>
<label for="per_tx_limit">Per-transaction limit</label><input id="per_tx_limit" name="per_tx_limit" inputmode="decimal" value="${p.per_tx_limit ?? ''}">
<label for="daily_limit">24-hour limit</label><input id="daily_limit" name="daily_limit" inputmode="decimal" value="${p.daily_limit ?? ''}">
<label for="approval_above">Approval needed above</label><input id="approval_above" name="approval_above" inputmode="decimal" value="${p.approval_above ?? ''}">
<label for="approval_quorum">Approvals needed (distinct members, 1 to ${QUORUM_MAX})</label><input id="approval_quorum" name="approval_quorum" inputmode="numeric" value="${p.approval_quorum}">
<label for="cooling_off_hours">Cooling-off of a new destination (hours)</label><input id="cooling_off_hours" name="cooling_off_hours" inputmode="numeric" value="${p.cooling_off_hours ?? ''}">
${codeField('policy-code')}
<button type="submit">Save the rules</button></form>`
  : ''}
<h2>Allowlist</h2>
<p>Addresses allowed on every chain. When the allowlist is not empty, withdrawals go only to these addresses and to beneficiaries.</p>
${table('Allowed addresses', ['Address', 'Added', 'Cooling-off', ''], allowlist.map(({ beneficiary: b, coolingOffEndsAt }) => [html`<code>${b.address}</code>`, when(b.addedAt), coolingOff(coolingOffEndsAt), removeButton('allowlist/remove', { address: b.address }, 'Remove')]))}
${manage
  ? html`<form method="post" action="/dashboard/security/allowlist" class="card" id="allowlist-form">${csrfField(member)}<label for="allow-address">Address to allow</label><input id="allow-address" name="address" required maxlength="200">${codeField('allowlist-code')}<button type="submit">Allow the address</button></form>`
  : ''}
<h2>Beneficiaries</h2>
${table('Beneficiaries', ['Chain', 'Address', 'Added', 'Cooling-off', ''], beneficiaries.map(({ beneficiary: b, coolingOffEndsAt }) => [b.chain, html`<code>${b.address}</code>`, when(b.addedAt), coolingOff(coolingOffEndsAt), removeButton('beneficiaries/remove', { chain: b.chain!, address: b.address }, 'Remove')]))}
${manage
  ? html`<form method="post" action="/dashboard/security/beneficiaries" class="card" id="beneficiary-form">${csrfField(member)}<label for="beneficiary-chain">Chain</label><select id="beneficiary-chain" name="chain">${MAINNETS.map((c) => html`<option>${c}</option>`)}</select><label for="beneficiary-address">Address</label><input id="beneficiary-address" name="address" required maxlength="200">${codeField('beneficiary-code')}<button type="submit">Add the beneficiary</button></form>`
  : ''}`,
    });
  });

  d.post('/security/policy', 'manage', policyForm, async ({ res, member, actor, stepUp }, f) => {
    const r = await stepUp(() =>
      setPolicy.execute({
        workspaceId: member.workspaceId,
        actor,
        perTxLimit: f.per_tx_limit,
        dailyLimit: f.daily_limit,
        approvalAbove: f.approval_above,
        approvalQuorum: f.approval_quorum,
        coolingOffHours: f.cooling_off_hours,
      }),
    );
    res.redirect(303, `/dashboard/security?done=${r.changed.length === 0 ? 'unchanged' : 'policy'}`);
  }, { stepUp: true });

  const allowlistNow = async (workspaceId: string) => (await show.execute(workspaceId)).policy.allowlist;
  d.post('/security/allowlist', 'manage', addressForm, async ({ res, member, actor, stepUp }, f) => {
    const r = await stepUp(async () =>
      setPolicy.execute({ workspaceId: member.workspaceId, actor, allowlist: [...(await allowlistNow(member.workspaceId)), f.address] }),
    );
    res.redirect(303, `/dashboard/security?done=${r.changed.length === 0 ? 'unchanged' : 'allowlist-added'}`);
  }, { stepUp: true });
  d.post('/security/allowlist/remove', 'manage', addressForm, async ({ res, member, actor, stepUp }, f) => {
    const r = await stepUp(async () =>
      setPolicy.execute({ workspaceId: member.workspaceId, actor, allowlist: (await allowlistNow(member.workspaceId)).filter((a) => a !== f.address) }),
    );
    res.redirect(303, `/dashboard/security?done=${r.changed.length === 0 ? 'unchanged' : 'allowlist-removed'}`);
  }, { stepUp: true });
  d.post('/security/beneficiaries', 'manage', beneficiaryForm, async ({ res, member, actor, stepUp }, f) => {
    const r = await stepUp(() => add.execute({ workspaceId: member.workspaceId, chain: f.chain, address: f.address, actor }));
    res.redirect(303, `/dashboard/security?done=${r.alreadyExisted ? 'unchanged' : 'beneficiary-added'}`);
  }, { stepUp: true });
  d.post('/security/beneficiaries/remove', 'manage', beneficiaryForm, async ({ res, member, actor, stepUp }, f) => {
    await stepUp(() => remove.execute({ workspaceId: member.workspaceId, chain: f.chain, address: f.address, actor }));
    res.redirect(303, '/dashboard/security?done=beneficiary-removed');
  }, { stepUp: true });

  d.get('/approvals', 'read', async ({ req, res, member }) => {
    const principal = memberPrincipal(member, 'live');
    const waiting = await reads.list({ ...principal, scopes: new Set(['withdrawals:read']) }, 'withdrawals:read', { status: 'PENDING_APPROVAL' }, { page: 1, limit: 100 });
    const quorum = await decide.quorum(member.workspaceId);
    const approvers = await uow.read(async (tx) => Promise.all(waiting.data.map((w) => tx.members.approvers(w.id))));
    const canDecide = may(member.role, 'approve');
    const decideForms = (id: string) =>
      canDecide
        ? html`<form method="post" action="/dashboard/approvals/${id}/approve" class="decide">${csrfField(member)}${codeField(`approve-code-${id}`)}<button type="submit">Approve</button></form>
<form method="post" action="/dashboard/approvals/${id}/reject" class="decide">${csrfField(member)}${codeField(`reject-code-${id}`)}<button type="submit" class="danger">Reject</button></form>`
        : '';
    d.render(res, {
      title: 'Approvals',
      member,
      current: 'approvals',
      notice: doneMessage(req.query.done),
      body: html`<p>Withdrawals above the approval threshold wait here until ${quorum} distinct member${quorum === 1 ? '' : 's'} approve${quorum === 1 ? 's' : ''} (the quorum). One rejection cancels a withdrawal. Each member counts once.</p>
${table(
  'Waiting for approval',
  ['Withdrawal', 'Chain', 'Amount', 'To', 'Requested', 'Approved by', ''],
  waiting.data.map((w, i) => [
    html`<a href="/dashboard/money/withdrawals/${w.id}"><code>${w.id}</code></a>`,
    w.network,
    `${Amount.ofUnits(w.asset, w.amount).toString()} ${w.asset}`,
    html`<code>${w.destination}</code>`,
    when(w.requestedAt),
    `${approvers[i]!.map((a) => a.email).join(', ') || 'nobody yet'} (${approvers[i]!.length} of ${quorum})`,
    decideForms(w.id),
  ]),
)}
<p>Only mainnet withdrawals need approval: the policy applies to live keys. ${networksOfSide('live').join(', ')}.</p>`,
    });
  });

  d.post('/approvals/:id/approve', 'approve', z.object({}), async ({ req, res, member, actor, stepUp }) => {
    const id = idParam.safeParse(req.params.id);
    const r = await stepUp(() => decide.approve(member.workspaceId, actor, id.success ? id.data : '00000000-0000-0000-0000-000000000000'));
    res.redirect(303, `/dashboard/approvals?done=${r.withdrawal.status === 'PENDING_APPROVAL' ? 'approved' : 'paid'}`);
  }, { stepUp: true });
  d.post('/approvals/:id/reject', 'approve', z.object({}), async ({ req, res, member, actor, stepUp }) => {
    const id = idParam.safeParse(req.params.id);
    await stepUp(() => decide.reject(member.workspaceId, actor, id.success ? id.data : '00000000-0000-0000-0000-000000000000'));
    res.redirect(303, '/dashboard/approvals?done=rejected');
  }, { stepUp: true });
}
