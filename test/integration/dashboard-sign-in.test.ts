// The owner's dashboard over real HTTP (issue 32, ADR 0033): a member made by
// invitation signs in with password and TOTP, changes the 24-hour limit with
// the second factor again (WITHDRAWAL_POLICY_CHANGED recorded, the audit log
// naming the member and their address), and the session's cookie is
// HttpOnly, SameSite=Strict, new at each sign-in and useless after sign-out.
import { describe, expect, it } from 'vitest';
import { ScryptPasswordHasher } from '../../src/adapters/crypto/scrypt-password-hasher.js';
import { createWorkspace, useTestApi } from '../support/harness.js';
import { createMember, DashboardClient } from '../support/dashboard.js';

const t = useTestApi({ workspace: 'dashboard' });
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);

describe('signing in to the dashboard', () => {
  it('signs in with password and code, changes the 24-hour limit with the second factor, and audits both', async () => {
    const owner = await createMember(t.api, t.ws.workspaceId, 'OWNER');
    const browser = new DashboardClient(t.api.baseUrl);
    expect((await browser.get('/dashboard/security')).location).toBe('/dashboard/sign-in');
    // With a TOTP code from the app (the other tests sign in with recovery codes: no wait for the next step).
    const signedIn = await browser.signIn(owner, await owner.code());
    expect([signedIn.status, signedIn.location]).toEqual([303, '/dashboard/security']);
    const cookie = signedIn.headers.getSetCookie()[0]!;
    expect(cookie).toMatch(/^wallet_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);

    const page = await browser.get('/dashboard/security');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Withdrawal security');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");

    // Without the code: refused, nothing changed.
    const noCode = await browser.post('/dashboard/security/policy', { daily_limit: '25000', code: '000000' });
    expect(noCode.status, noCode.text).toBe(401);
    expect(await sql(`select * from withdrawal_policies where workspace_id = ?`, [t.ws.workspaceId])).toEqual([]);

    const changed = await browser.post('/dashboard/security/policy', { daily_limit: '25000', code: await owner.code() });
    expect([changed.status, changed.location]).toEqual([303, '/dashboard/security?done=policy']);
    const [policy] = await sql<{ daily_limit: string }>(`select daily_limit::text from withdrawal_policies where workspace_id = ?`, [t.ws.workspaceId]);
    expect(policy!.daily_limit).toBe('25000.000000000000000000');
    const events = await sql<{ event: string; payload: string }>(
      `select event, payload from webhook_events where workspace_id = ? order by created_at`,
      [t.ws.workspaceId],
    );
    expect(events.map((e) => e.event)).toEqual(['WITHDRAWAL_POLICY_CHANGED', 'WITHDRAWAL_POLICY_CHANGED']);
    expect((JSON.parse(events[0]!.payload) as { data: { changed: string[] } }).data.changed).toEqual(['daily_limit']);

    const audit = await browser.get('/dashboard/audit');
    expect(audit.status).toBe(200);
    const [entry] = await sql<{ actor: string; source: string; action: string; before: { daily_limit: null }; after: { daily_limit: string } }>(
      `select actor, source, action, before, after from member_audit where workspace_id = ? and action = 'policy.set'`,
      [t.ws.workspaceId],
    );
    expect(entry).toMatchObject({ actor: owner.email, source: '127.0.0.1', before: { daily_limit: null }, after: { daily_limit: '25000' } });
    expect(audit.text).toContain('policy.set');
    const csv = await browser.get('/dashboard/audit.csv');
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.text.split('\n')[0]).toBe('at,actor,member_id,source,action,target,before,after');
    expect(csv.text).toContain('member.sign-in');
  }, 90_000); // three TOTP codes of one member: the third waits for the next 30-second step

  it('gives a new session at each sign-in and makes the old cookie useless after sign-out', async () => {
    const owner = await createMember(t.api, t.ws.workspaceId, 'OWNER');
    const browser = new DashboardClient(t.api.baseUrl);
    // A cookie planted before sign-in (fixation) is replaced, not adopted.
    browser.cookie = 'wallet_session=planted-by-an-attacker-0123456789abcdef';
    await browser.signIn(owner);
    expect(browser.cookie).not.toContain('planted');
    const first = browser.cookie!;
    await browser.signIn(owner);
    expect(browser.cookie).not.toBe(first);
    const stolen = browser.cookie!;
    // The first session ended when the second began in the same browser.
    const thief = new DashboardClient(t.api.baseUrl);
    thief.cookie = first;
    expect((await thief.get('/dashboard/security')).location).toBe('/dashboard/sign-in');

    thief.cookie = stolen;
    expect((await thief.get('/dashboard/security')).status).toBe(200);
    const out = await browser.post('/dashboard/sign-out');
    expect(out.location).toBe('/dashboard/sign-in');
    expect(browser.cookie).toBeNull();
    expect((await thief.get('/dashboard/security')).location).toBe('/dashboard/sign-in');
    expect((await thief.post('/dashboard/security/policy', { daily_limit: '1', code: owner.recovery() })).status).toBe(401);
  });

  it('refuses a change without the CSRF token or from another origin, and a member of another workspace sees none of this one', async () => {
    const owner = await createMember(t.api, t.ws.workspaceId, 'OWNER');
    const browser = new DashboardClient(t.api.baseUrl);
    await browser.signIn(owner);
    const before = await sql(`select * from withdrawal_policies where workspace_id = ?`, [t.ws.workspaceId]);
    expect((await browser.post('/dashboard/security/policy', { _csrf: 'forged', daily_limit: '1', code: owner.recovery() })).status).toBe(403);
    expect((await browser.post('/dashboard/security/policy', { daily_limit: '1', code: owner.recovery() }, { origin: 'https://evil.example' })).status).toBe(403);
    expect(await sql(`select * from withdrawal_policies where workspace_id = ?`, [t.ws.workspaceId])).toEqual(before);

    const other = await createWorkspace(t.api, 'other');
    const stranger = await createMember(t.api, other.workspaceId, 'OWNER');
    const theirs = new DashboardClient(t.api.baseUrl);
    await theirs.signIn(stranger);
    const [w] = await sql<{ id: string }>(`select id from member_audit where workspace_id = ? limit 1`, [t.ws.workspaceId]);
    expect(w).toBeDefined();
    expect((await theirs.get('/dashboard/audit')).text).not.toContain(owner.email);
  });

  it('lets one email belong to two workspaces, each with its own authenticator: the code picks the member, and no list of workspaces shows', async () => {
    const second = await createWorkspace(t.api, 'second');
    const email = `both-${Date.now()}@example.com`;
    // createMember derives the password from the email: the same in both.
    const here = await createMember(t.api, t.ws.workspaceId, 'OWNER', email);
    const there = await createMember(t.api, second.workspaceId, 'VIEWER', email);
    const a = new DashboardClient(t.api.baseUrl);
    expect((await a.post('/dashboard/sign-in', { email, password: here.password, code: await here.code() })).location).toBe('/dashboard/security');
    expect((await a.get('/dashboard/security')).text).toContain(`${email} · OWNER`);
    const b = new DashboardClient(t.api.baseUrl);
    expect((await b.post('/dashboard/sign-in', { email, password: there.password, code: there.recovery() })).location).toBe('/dashboard/security');
    expect((await b.get('/dashboard/security')).text).toContain(`${email} · VIEWER`);
    // The right password with a wrong code: a plain refusal, naming no workspace.
    const wrong = await new DashboardClient(t.api.baseUrl).post('/dashboard/sign-in', { email, password: here.password, code: '000000' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain(second.workspaceId);
    expect(wrong.text).not.toContain('second');
    // Another password in the second workspace: it opens only that one.
    await sql(`update workspace_members set password_hash = ? where workspace_id = ? and email = ?`, [
      await new ScryptPasswordHasher().hash('the second workspace password'), second.workspaceId, email,
    ]);
    expect((await new DashboardClient(t.api.baseUrl).post('/dashboard/sign-in', { email, password: 'the second workspace password', code: here.recovery() })).status).toBe(401);
  });

  it('lets an owner remove a member (ending their sessions) with the second factor, but never the last owner or themselves', async () => {
    const owner = await createMember(t.api, t.ws.workspaceId, 'OWNER');
    const viewer = await createMember(t.api, t.ws.workspaceId, 'VIEWER');
    const theirs = new DashboardClient(t.api.baseUrl);
    await theirs.signIn(viewer, viewer.recovery());
    const b = new DashboardClient(t.api.baseUrl);
    await b.signIn(owner, owner.recovery());
    const id = async (email: string) => (await sql<{ id: string }>(`select id from workspace_members where email = ?`, [email]))[0]!.id;
    expect((await b.post(`/dashboard/members/${await id(viewer.email)}/remove`, { code: '000000' })).status).toBe(401);
    expect((await theirs.get('/dashboard/security')).status).toBe(200);
    expect((await b.post(`/dashboard/members/${await id(viewer.email)}/remove`, { code: owner.recovery() })).location).toBe('/dashboard/members?done=removed');
    expect((await theirs.get('/dashboard/security')).location).toBe('/dashboard/sign-in');
    expect((await b.post(`/dashboard/members/${await id(owner.email)}/remove`, { code: owner.recovery() })).status).toBe(422);
    // The other owners gone (by hand here), two remain: each may remove the other, never both.
    await sql(`delete from workspace_members where workspace_id = ? and role = 'OWNER' and email <> ?`, [t.ws.workspaceId, owner.email]);
    const survivor = await createMember(t.api, t.ws.workspaceId, 'OWNER');
    const s2 = new DashboardClient(t.api.baseUrl);
    await s2.signIn(survivor, survivor.recovery());
    const both = await Promise.all([
      b.post(`/dashboard/members/${await id(survivor.email)}/remove`, { code: owner.recovery() }),
      s2.post(`/dashboard/members/${await id(owner.email)}/remove`, { code: survivor.recovery() }),
    ]);
    // One removal wins; the other is refused, as the last owner's (422) or as coming from the removed owner's ended session (401).
    const statuses = both.map((r) => r.status).sort();
    expect(statuses[0]).toBe(303);
    expect([401, 422]).toContain(statuses[1]);
    const left = await sql(`select id from workspace_members where workspace_id = ? and role = 'OWNER' and password_hash is not null`, [t.ws.workspaceId]);
    expect(left).toHaveLength(1);
  });
});
