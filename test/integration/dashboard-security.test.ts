// The dashboard's guards over real HTTP (issue 32, ADR 0033): a VIEWER is
// refused every change the dashboard serves and an APPROVER every change but
// approvals, changing nothing; approvals need the quorum of distinct members
// (one member counts once) and one rejection cancels; another workspace's
// withdrawal is not found; the lockout stops an address, never the owner
// from their own; a TOTP code and a recovery code work once; an idle or
// expired session opens nothing; the cookie is Secure and __Host- outside
// the sandbox; a used invitation link is dead.
import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { creditDeposit, lockForWithdrawal } from '../../src/domain/ledger/entries.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import type { Withdrawal } from '../../src/domain/withdrawals/withdrawal.js';
import { createMember, DashboardClient, type TestMember } from '../support/dashboard.js';
import { createWorkspace, startTestApi, testConfig, useTestApi } from '../support/harness.js';

// X-Forwarded-For from loopback is believed: the lockout's tests come "from" several addresses.
const t = useTestApi({ workspace: 'guards', env: { TRUST_PROXY: 'loopback' } });
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);
const uow = () => t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
let other: CreatedWorkspace;

const signedIn = async (m: TestMember, from?: string) => {
  const b = new DashboardClient(t.api.baseUrl);
  const r = await b.post('/dashboard/sign-in', { email: m.email, password: m.password, code: m.recovery() }, from ? { 'x-forwarded-for': from } : {});
  expect(r.status, r.text).toBe(303);
  await b.get('/dashboard/security');
  return b;
};

type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };

/** Every POST route the dashboard serves, from the app's own routers (so a new one is covered without a list here). */
function dashboardPosts(app: Express): string[] {
  const routes = (stack: Layer[]): Layer['route'][] => stack.flatMap((l) => (l.route ? [l.route] : l.handle?.stack ? routes(l.handle.stack) : []));
  const top = (app as unknown as { router: { stack: Layer[] } }).router.stack;
  // The mounted dashboard: the one router whose routes include its sign-in.
  const dashboard = top.find((l) => l.handle?.stack && routes(l.handle.stack).some((r) => r?.path === '/sign-in'));
  return [...new Set(routes(dashboard!.handle!.stack!).filter((r) => r?.methods.post).map((r) => `/dashboard${r!.path}`))];
}

const everything = async () => ({
  policies: await sql(`select * from withdrawal_policies order by workspace_id`),
  beneficiaries: await sql(`select * from beneficiaries order by id`),
  members: await sql(`select id, role from workspace_members order by id`),
  invitations: await sql(`select id, revoked_at from member_invitations order by id`),
  withdrawals: await sql(`select id, status from withdrawals order by id`),
  approvals: await sql(`select * from withdrawal_approvals order by withdrawal_id, member_id`),
  endpoints: await sql(`select id, url, is_active from webhook_endpoints order by id`),
  keys: await sql(`select id, revoked_at from api_keys order by id`),
});

const waiting = async (workspaceId: string): Promise<Withdrawal> => {
  const w: Withdrawal = {
    id: randomUUID(), workspaceId, network: 'ETH_MAINNET', asset: 'USDT_ETH', amount: 200_000_000n, fee: 5_000_000n, netAmount: 195_000_000n,
    destination: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', status: 'PENDING_APPROVAL', idempotencyKey: null, transferId: null, txid: null, failure: null,
    requestedAt: new Date(), confirmedAt: null, updatedAt: new Date(),
  };
  const usdt = (s: string) => Amount.parse(s, 'USDT_ETH');
  await uow().run(async (tx) => {
    await tx.ledger.post(creditDeposit({ id: randomUUID(), network: 'ETH_MAINNET', at: new Date(), depositId: randomUUID(), workspaceId, gross: usdt('200'), fee: Amount.zero('USDT_ETH') }));
    await tx.ledger.post(lockForWithdrawal({ id: randomUUID(), network: 'ETH_MAINNET', at: new Date(), withdrawalId: w.id, workspaceId, amount: usdt('200') }));
    await tx.withdrawals.add(w);
  });
  return w;
};
const statusOf = async (id: string) => (await sql<{ status: string }>(`select status from withdrawals where id = ?`, [id]))[0]!.status;

beforeAll(async () => {
  other = await createWorkspace(t.api, 'guards-other');
});

describe('roles', () => {
  it('refuses a VIEWER every change and an APPROVER every change but approvals, with 403, changing nothing', async () => {
    const posts = dashboardPosts(t.api.app);
    // The doors (sign-in, invitations, sign-out) and at least the changes of each section.
    expect(posts).toEqual(expect.arrayContaining(['/dashboard/sign-in', '/dashboard/security/policy', '/dashboard/approvals/:id/approve', '/dashboard/members/invite', '/dashboard/webhooks', '/dashboard/keys']));
    const doors = ['/dashboard/sign-in', '/dashboard/sign-out', '/dashboard/invitations/:token'];
    const changes = posts.filter((p) => !doors.includes(p));
    expect(changes.length).toBeGreaterThan(12);
    const viewer = await signedIn(await createMember(t.api, t.ws.workspaceId, 'VIEWER'));
    const approver = await signedIn(await createMember(t.api, t.ws.workspaceId, 'APPROVER'));
    const before = await everything();
    const fill = (p: string) => p.replace(/:[a-zA-Z]+/g, randomUUID());
    for (const path of changes) {
      const form = { daily_limit: '1', code: '123456', email: 'x@example.com', role: 'OWNER', url: 'https://example.com/h', side: 'test', label: 'x', scopes: 'fees:read', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', chain: 'ETH_MAINNET', since: '2026-01-01T00:00:00Z' };
      expect((await viewer.post(fill(path), form)).status, `VIEWER ${path}`).toBe(403);
      const asApprover = (await approver.post(fill(path), form)).status;
      // An approver may decide approvals: past the role check, the wrong code is refused first.
      expect(asApprover, `APPROVER ${path}`).toBe(path.startsWith('/dashboard/approvals/') ? 401 : 403);
    }
    expect(await everything()).toEqual(before);
  });
});

describe('approvals', () => {
  it('needs the quorum of distinct members: one member counts once, the second moves it on; one rejection cancels', async () => {
    const owner = await createMember(t.api, t.ws.workspaceId, 'OWNER');
    const approverMember = await createMember(t.api, t.ws.workspaceId, 'APPROVER');
    const browser = await signedIn(owner);
    expect((await browser.post('/dashboard/security/policy', { approval_quorum: '2', approval_above: '100', code: owner.recovery() })).location).toBe('/dashboard/security?done=policy');

    const w = await waiting(t.ws.workspaceId);
    const page = await browser.get('/dashboard/approvals');
    expect(page.text).toContain(w.id);
    expect(page.text).toContain('nobody yet (0 of 2)');
    // Without the second factor: refused, nothing counted.
    expect((await browser.post(`/dashboard/approvals/${w.id}/approve`, { code: '000000' })).status).toBe(401);
    expect(await sql(`select member_id from withdrawal_approvals where withdrawal_id = ?`, [w.id])).toHaveLength(0);
    expect((await browser.post(`/dashboard/approvals/${w.id}/approve`, { code: owner.recovery() })).location).toBe('/dashboard/approvals?done=approved');
    expect(await statusOf(w.id)).toBe('PENDING_APPROVAL');
    // The same member again: refused, still one approval.
    expect((await browser.post(`/dashboard/approvals/${w.id}/approve`, { code: owner.recovery() })).status).toBe(409);
    expect(await sql(`select member_id from withdrawal_approvals where withdrawal_id = ?`, [w.id])).toHaveLength(1);
    // A member of another workspace does not find it.
    const strangerMember = await createMember(t.api, other.workspaceId, 'OWNER');
    const stranger = await signedIn(strangerMember);
    const strangerCode = strangerMember.recovery();
    expect((await stranger.post(`/dashboard/approvals/${w.id}/approve`, { code: strangerCode })).status).toBe(404);
    expect((await stranger.post(`/dashboard/approvals/${w.id}/reject`, { code: strangerCode })).status).toBe(404);
    expect((await stranger.get('/dashboard/approvals')).text).not.toContain(w.id);
    expect(await statusOf(w.id)).toBe('PENDING_APPROVAL');

    // A member who joined after the request does not count: an owner cannot mint approvers to meet the quorum alone.
    const latecomer = await createMember(t.api, t.ws.workspaceId, 'APPROVER');
    const late = await signedIn(latecomer);
    expect((await late.post(`/dashboard/approvals/${w.id}/approve`, { code: latecomer.recovery() })).status).toBe(422);
    expect(await statusOf(w.id)).toBe('PENDING_APPROVAL');

    const approver = await signedIn(approverMember);
    expect((await approver.post(`/dashboard/approvals/${w.id}/approve`, { code: approverMember.recovery() })).location).toBe('/dashboard/approvals?done=paid');
    expect(await statusOf(w.id)).toBe('PENDING');
    expect((await approver.post(`/dashboard/approvals/${w.id}/approve`, { code: approverMember.recovery() })).status).toBe(422);

    const rejected = await waiting(t.ws.workspaceId);
    expect((await approver.post(`/dashboard/approvals/${rejected.id}/reject`, { code: approverMember.recovery() })).location).toBe('/dashboard/approvals?done=rejected');
    expect(await statusOf(rejected.id)).toBe('CANCELLED');
    const audit = await sql<{ action: string; actor: string; after: { approvals?: number; status: string } }>(
      `select action, actor, after from member_audit where target in (?, ?) order by at`,
      [w.id, rejected.id],
    );
    expect(audit.map((a) => [a.action, a.actor, a.after.status])).toEqual([
      ['withdrawal.approve', owner.email, 'PENDING_APPROVAL'],
      ['withdrawal.approve', approverMember.email, 'PENDING'],
      ['withdrawal.reject', approverMember.email, 'CANCELLED'],
    ]);
  });
});

describe('sign-in', () => {
  it('locks an address out after repeated failures, while the owner signs in from their own address', async () => {
    const owner = await createMember(t.api, t.ws.workspaceId, 'OWNER');
    const attacker = new DashboardClient(t.api.baseUrl);
    const from = { 'x-forwarded-for': '203.0.113.9' };
    for (let i = 0; i < 5; i++) {
      expect((await attacker.post('/dashboard/sign-in', { email: owner.email, password: 'wrong password!', code: '000000' }, from)).status).toBe(401);
    }
    // Now even the right password from that address is refused, with when to come back.
    const locked = await attacker.post('/dashboard/sign-in', { email: owner.email, password: owner.password, code: owner.recovery() }, from);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800);
    // The owner, from elsewhere, is not locked out.
    await signedIn(owner, '198.51.100.7');
    // Many emails from one address: the address is refused.
    const sprayer = { 'x-forwarded-for': '203.0.113.10' };
    for (let i = 0; i < 20; i++) await attacker.post('/dashboard/sign-in', { email: `nobody${i}@example.com`, password: 'guess guess guess', code: '000000' }, sprayer);
    expect((await attacker.post('/dashboard/sign-in', { email: owner.email, password: owner.password, code: owner.recovery() }, sprayer)).status).toBe(429);
    await signedIn(owner, '198.51.100.8');
  });

  it('accepts a TOTP code once and a recovery code once; ends idle and expired sessions; a used invitation is dead', async () => {
    const owner = await createMember(t.api, t.ws.workspaceId, 'OWNER');
    const code = await owner.code();
    const first = new DashboardClient(t.api.baseUrl);
    expect((await first.post('/dashboard/sign-in', { email: owner.email, password: owner.password, code })).status).toBe(303);
    expect((await new DashboardClient(t.api.baseUrl).post('/dashboard/sign-in', { email: owner.email, password: owner.password, code })).status).toBe(401);
    const recovery = owner.recovery();
    expect((await new DashboardClient(t.api.baseUrl).post('/dashboard/sign-in', { email: owner.email, password: owner.password, code: recovery })).status).toBe(303);
    expect((await new DashboardClient(t.api.baseUrl).post('/dashboard/sign-in', { email: owner.email, password: owner.password, code: recovery })).status).toBe(401);

    expect((await first.get('/dashboard/security')).status).toBe(200);
    await sql(`update member_sessions set last_seen_at = now() - interval '31 minutes' where member_id = (select id from workspace_members where email = ?)`, [owner.email]);
    expect((await first.get('/dashboard/security')).location).toBe('/dashboard/sign-in');
    const second = await signedIn(owner);
    await sql(`update member_sessions set expires_at = now() - interval '1 second' where ended_at is null and member_id = (select id from workspace_members where email = ?)`, [owner.email]);
    expect((await second.get('/dashboard/security')).location).toBe('/dashboard/sign-in');

    const invite = await second.post('/dashboard/members/invite', { email: 'someone@example.com', role: 'VIEWER' });
    expect(invite.status).toBe(401); // the session above expired
    const third = await signedIn(owner);
    const invited = await third.post('/dashboard/members/invite', { email: 'someone@example.com', role: 'VIEWER', code: owner.recovery() });
    const link = /id="invitation-link">([^<]+)</.exec(invited.text)![1]!.trim();
    const token = link.split('/').pop()!;
    expect((await third.get(`/dashboard/invitations/${token}`)).status).toBe(200);
    // Replaced by a second invitation of the same email: the first link is dead.
    await third.post('/dashboard/members/invite', { email: 'someone@example.com', role: 'VIEWER', code: owner.recovery() });
    const dead = await new DashboardClient(t.api.baseUrl).get(`/dashboard/invitations/${token}`);
    expect(dead.status).toBe(404);
    expect(dead.text).toContain('cannot be used (revoked)');
  });

  it('sets a Secure __Host- cookie outside the sandbox (an https DASHBOARD_URL)', async () => {
    const api = await startTestApi(testConfig(t.db.url, { DASHBOARD_URL: 'https://console.example.com/dashboard' }));
    try {
      const owner = await createMember(api, t.ws.workspaceId, 'OWNER');
      const r = await new DashboardClient(api.baseUrl).post('/dashboard/sign-in', { email: owner.email, password: owner.password, code: owner.recovery() });
      expect(r.headers.getSetCookie()[0]).toMatch(/^__Host-wallet_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
      // A form from the dashboard's public origin passes the origin check; another is refused.
      const b = new DashboardClient(api.baseUrl);
      expect((await b.post('/dashboard/sign-in', { email: owner.email, password: owner.password, code: owner.recovery() }, { origin: 'https://evil.example' })).status).toBe(403);
      expect((await b.post('/dashboard/sign-in', { email: owner.email, password: owner.password, code: owner.recovery() }, { origin: 'https://console.example.com' })).status).toBe(303);
    } finally {
      await api.close();
    }
  });

  it('counts parallel attempts one by one: a burst from one address gets at most the allowed failures, at sign-in and at a change', async () => {
    const owner = await createMember(t.api, t.ws.workspaceId, 'OWNER');
    const burst = new DashboardClient(t.api.baseUrl);
    const from = { 'x-forwarded-for': '203.0.113.20' };
    const tries = await Promise.all(Array.from({ length: 30 }, () => burst.post('/dashboard/sign-in', { email: owner.email, password: 'not the password', code: '000000' }, from)));
    const statuses = tries.map((r) => r.status);
    expect(statuses.filter((x) => x === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((x) => x === 429).length).toBeGreaterThanOrEqual(25);

    // A stolen session guessing the code of a change: the same count.
    const b = await signedIn(owner, '203.0.113.21');
    const guesses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => b.post('/dashboard/security/policy', { daily_limit: '1', code: String(100000 + i) }, { 'x-forwarded-for': '203.0.113.21' })),
    );
    expect(guesses.filter((r) => r.status === 401).length).toBeLessThanOrEqual(5);
    expect(guesses.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(25);
    expect(await sql(`select * from withdrawal_policies where workspace_id = ? and daily_limit = 1`, [t.ws.workspaceId])).toEqual([]);
  });

  it('answers a body it cannot read with a 4xx page, never a 500, and links back only to its own pages', async () => {
    const owner = await createMember(t.api, t.ws.workspaceId, 'OWNER');
    const b = await signedIn(owner);
    const raw = (path: string, body: string, headers: Record<string, string>) =>
      fetch(t.api.baseUrl + path, { method: 'POST', body, redirect: 'manual', headers: { cookie: b.cookie!, ...headers } });
    const form = 'application/x-www-form-urlencoded';
    const cases: [string, string, Record<string, string>][] = [
      ['/dashboard/sign-in', 'email=a%00%40x.co&password=xxxxxxxxxxxxx&code=123456', { 'content-type': form }],
      ['/dashboard/members/invite', `_csrf=${b.csrf}&email=a%00b%40x.co&role=VIEWER&code=123456`, { 'content-type': form }],
      ['/dashboard/sign-in', 'email=a', { 'content-type': `${form}; charset=utf-16` }],
      ['/dashboard/sign-in', 'email=a', { 'content-type': form, 'content-encoding': 'xyz' }],
      ['/dashboard/sign-in', 'not gzip at all', { 'content-type': form, 'content-encoding': 'gzip' }],
      ['/dashboard/nowhere', 'x=1', { 'content-type': form, 'content-encoding': 'xyz' }],
    ];
    for (const [path, body, headers] of cases) {
      const r = await raw(path, body, headers);
      expect(r.status, `${path} ${JSON.stringify(headers)}`).toBeGreaterThanOrEqual(400);
      expect(r.status, `${path} ${JSON.stringify(headers)}`).toBeLessThan(500);
    }
    const evil = await fetch(`${t.api.baseUrl}/dashboard/invitations/nope`, { headers: { referer: `${t.api.baseUrl}.evil.example/` } });
    expect(evil.status).toBe(404);
    expect(await evil.text()).toContain('<a href="/dashboard">Go back</a>');
  });

  it('ends a session that guesses codes from many addresses, and never prolongs a lockout with the attempts it refuses', async () => {
    const owner = await createMember(t.api, t.ws.workspaceId, 'OWNER');
    const stolen = await signedIn(owner, '203.0.113.30');
    for (let i = 0; i < 5; i++) {
      const r = await stolen.post('/dashboard/members/invite', { email: 'mallory@example.com', role: 'OWNER', code: String(200000 + i) }, { 'x-forwarded-for': `198.18.0.${i + 1}` });
      expect(r.status).toBe(401);
    }
    // The fifth wrong code ended the session: the cookie opens nothing any more; the owner signs in again as usual.
    expect((await stolen.get('/dashboard/members')).location).toBe('/dashboard/sign-in');
    await signedIn(owner, '203.0.113.31');
    expect(await sql(`select * from member_invitations where email = 'mallory@example.com'`)).toEqual([]);

    // Five failures lock the pair; the refused attempts after them are not counted.
    const pair = { 'x-forwarded-for': '203.0.113.32' };
    const c = new DashboardClient(t.api.baseUrl);
    for (let i = 0; i < 5; i++) await c.post('/dashboard/sign-in', { email: owner.email, password: 'wrong wrong wrong', code: '000000' }, pair);
    for (let i = 0; i < 5; i++) expect((await c.post('/dashboard/sign-in', { email: owner.email, password: owner.password, code: owner.recovery() }, pair)).status).toBe(429);
    expect(await sql(`select id from sign_in_failures where email = ? and source = '203.0.113.32'`, [owner.email])).toHaveLength(5);
  });

  it('revokes a removed member’s invitations with them, and lets an owner revoke an open one', async () => {
    const owner = await createMember(t.api, t.ws.workspaceId, 'OWNER');
    const other = await createMember(t.api, t.ws.workspaceId, 'OWNER');
    const o = await signedIn(owner);
    const x = await signedIn(other);
    const linkOf = (text: string) => /id="invitation-link">([^<]+)</.exec(text)![1]!.trim().split('/').pop()!;
    const planted = linkOf((await x.post('/dashboard/members/invite', { email: 'accomplice@example.com', role: 'OWNER', code: other.recovery() })).text);
    const plain = linkOf((await o.post('/dashboard/members/invite', { email: 'newcomer@example.com', role: 'VIEWER', code: owner.recovery() })).text);
    const otherId = (await sql<{ id: string }>(`select id from workspace_members where email = ?`, [other.email]))[0]!.id;
    expect((await o.post(`/dashboard/members/${otherId}/remove`, { code: owner.recovery() })).location).toBe('/dashboard/members?done=removed');
    expect((await new DashboardClient(t.api.baseUrl).get(`/dashboard/invitations/${planted}`)).status).toBe(404);
    expect((await new DashboardClient(t.api.baseUrl).get(`/dashboard/invitations/${plain}`)).status).toBe(200);
    const [open] = await sql<{ id: string }>(`select id from member_invitations where email = 'newcomer@example.com' and revoked_at is null`);
    expect((await o.post(`/dashboard/members/invitations/${open!.id}/revoke`)).location).toBe('/dashboard/members?done=revoked');
    expect((await new DashboardClient(t.api.baseUrl).get(`/dashboard/invitations/${plain}`)).status).toBe(404);
    // Another workspace's invitation, or one revoked already: not found.
    expect((await o.post(`/dashboard/members/invitations/${open!.id}/revoke`)).status).toBe(404);
    // A path that does not decode, a cursor out of range: a page, never a 500.
    expect((await o.get('/dashboard/invitations/%E0%A4%A')).status).toBe(404);
    expect((await o.get('/dashboard/audit?before=-271821-04-20T00:00:00Z')).status).toBe(200);
  });
});
