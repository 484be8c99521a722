// ops owner invite (issue 32, ADR 0033): the operator invites a workspace's
// first owner to its dashboard. The one-time link is printed and mailed (a
// file under DATA_DIR/mail in the sandbox); the service keeps only the
// token's hash; a second invitation of the same email replaces the first;
// bad input changes nothing.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestApi } from '../support/harness.js';
import { opsEnv, runEntry } from '../support/processes.js';

const t = useTestApi({ workspace: 'owner-invite' });
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);

describe('ops owner invite', () => {
  it('prints and mails a one-time link whose token only the link holds; a new invitation replaces the open one', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wallet-invite-'));
    const env = opsEnv(t.db.url, { DATA_DIR: dataDir, DASHBOARD_URL: 'https://console.example.com/dashboard/' });
    const first = await runEntry('src/bootstrap/ops.ts', env, ['owner', 'invite', '--workspace', t.ws.workspaceId, '--email', ' Owner@Example.COM', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const out = JSON.parse(first.stdout) as { invitation_id: string; email: string; role: string; link: string; expires_at: string; mailed: boolean };
    expect(out).toMatchObject({ email: 'owner@example.com', role: 'OWNER', mailed: true, workspace_id: t.ws.workspaceId });
    const token = /^https:\/\/console\.example\.com\/dashboard\/invitations\/([A-Za-z0-9_-]{43})$/.exec(out.link)?.[1];
    expect(token).toBeDefined();
    expect(new Date(out.expires_at).getTime() - Date.now()).toBeGreaterThan(71 * 3_600_000);
    // Kept as its hash only: the token itself is nowhere in the database.
    const [row] = await sql<{ token_hash: string; revoked_at: Date | null }>(`select token_hash, revoked_at from member_invitations where id = ?`, [out.invitation_id]);
    expect(row!.token_hash).toBe(createHash('sha256').update(token!).digest('hex'));
    expect(JSON.stringify(await sql(`select * from member_invitations`))).not.toContain(token!);
    // The mail carries the link.
    const mails = readdirSync(join(dataDir, 'mail'));
    expect(mails).toHaveLength(1);
    // Quoted-printable: its soft line breaks joined again.
    const mail = readFileSync(join(dataDir, 'mail', mails[0]!), 'utf8').replace(/=\r?\n/g, '');
    expect(mail).toContain('owner@example.com');
    expect(mail).toContain(out.link);

    const second = await runEntry('src/bootstrap/ops.ts', env, ['owner', 'invite', '--workspace', t.ws.workspaceId, '--email', 'owner@example.com', '--json']);
    expect(second.code).toBe(0);
    const again = JSON.parse(second.stdout) as { invitation_id: string; link: string };
    expect(again.link).not.toBe(out.link);
    const rows = await sql<{ id: string; open: boolean }>(`select id, revoked_at is null as open from member_invitations where workspace_id = ? order by created_at`, [t.ws.workspaceId]);
    expect(rows).toEqual([
      { id: out.invitation_id, open: false },
      { id: again.invitation_id, open: true },
    ]);
    // In words, for a person.
    const words = await runEntry('src/bootstrap/ops.ts', env, ['owner', 'invite', '--workspace', t.ws.workspaceId, '--email', 'owner@example.com']);
    expect(words.stdout).toMatch(/^owner@example\.com is invited as OWNER of workspace \S+; the link works once, until \S+ \(mailed\):\nhttps:\/\/console\.example\.com\/dashboard\/invitations\/\S+\n$/);
  });

  it('refuses a bad email, an unknown workspace and a bad id with their codes, and records nothing', async () => {
    const env = opsEnv(t.db.url, { DATA_DIR: mkdtempSync(join(tmpdir(), 'wallet-invite-')) });
    const before = await sql(`select count(*)::int as n from member_invitations`);
    const cases: [string[], string][] = [
      [['--workspace', t.ws.workspaceId, '--email', 'not an email'], 'VALIDATION_ERROR'],
      [['--workspace', '00000000-0000-4000-8000-000000000000', '--email', 'a@example.com'], 'WORKSPACE_NOT_FOUND'],
      [['--workspace', 'nope', '--email', 'a@example.com'], 'VALIDATION_ERROR'],
    ];
    for (const [args, code] of cases) {
      const r = await runEntry('src/bootstrap/ops.ts', env, ['owner', 'invite', ...args, '--json']);
      expect([r.code, (JSON.parse(r.stdout) as { code: string }).code]).toEqual([2, code]);
    }
    expect(await sql(`select count(*)::int as n from member_invitations`)).toEqual(before);
  });

  it('in production without a mail server says the link was not mailed, and never logs it', async () => {
    const env = opsEnv(t.db.url, { NODE_ENV: 'production', LOG_LEVEL: 'info', DASHBOARD_URL: 'https://console.example.com/dashboard' });
    const r = await runEntry('src/bootstrap/ops.ts', env, ['owner', 'invite', '--workspace', t.ws.workspaceId, '--email', 'unmailed@example.com', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { link: string; mailed: boolean };
    expect(out.mailed).toBe(false);
    const token = out.link.split('/').pop()!;
    expect(r.stderr).toContain('mail not sent: SMTP_URL is not set');
    expect(r.stderr).not.toContain(token);
  });
});
