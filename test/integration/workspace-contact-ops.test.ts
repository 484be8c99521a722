// The workspace contact e-mail through the ops CLI, run as a process against
// the real database (docs/operations.md#operator-notices): `workspace create
// --contact-email` and `workspace set-contact`; an address that is not one is
// refused and changes nothing.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { opsEnv, runEntry } from '../support/processes.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const ops = async (...args: string[]) => {
  const res = await runEntry('src/bootstrap/ops.ts', opsEnv(db.url, { DATA_DIR: mkdtempSync(join(tmpdir(), 'wallet-ops-')) }), [...args, '--json']);
  return { code: res.code, out: res.stdout ? JSON.parse(res.stdout) : null, err: res.stderr };
};

async function query<T>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

const contactOf = async (id: string) =>
  (await query<{ contact_email: string | null }>('select contact_email from workspaces where id = $1', [id]))[0]?.contact_email;
const workspaceCount = async () => Number((await query<{ n: string }>('select count(*) as n from workspaces'))[0]!.n);

describe('ops workspace contact e-mail', () => {
  it('creates a workspace with a contact e-mail, printing it beside the keys; without one it is null', async () => {
    const [withContact, without] = await Promise.all([
      ops('workspace', 'create', '--name', 'Acme', '--contact-email', 'ops@acme.example'),
      ops('workspace', 'create', '--name', 'Plain'),
    ]);
    expect([withContact.code, without.code]).toEqual([0, 0]);
    expect(Object.keys(withContact.out).sort()).toEqual(['contact_email', 'live_key', 'test_key', 'workspace_id']);
    expect(withContact.out.contact_email).toBe('ops@acme.example');
    expect(withContact.out.live_key.key_id).toMatch(/^sk_live_/);
    expect(without.out.contact_email).toBeNull();
    expect(await contactOf(withContact.out.workspace_id)).toBe('ops@acme.example');
    expect(await contactOf(without.out.workspace_id)).toBeNull();
  });

  it('sets the contact e-mail of an existing workspace', async () => {
    const created = await ops('workspace', 'create', '--name', 'Later');
    const id = created.out.workspace_id as string;
    const set = await ops('workspace', 'set-contact', '--workspace', id, '--email', 'billing@later.example');
    expect([set.code, set.out]).toEqual([0, { workspace_id: id, contact_email: 'billing@later.example' }]);
    expect(await contactOf(id)).toBe('billing@later.example');
  });

  it('refuses an address that is not an e-mail with VALIDATION_ERROR and a non-zero exit, changing nothing', async () => {
    const before = await workspaceCount();
    const create = await ops('workspace', 'create', '--name', 'Broken', '--contact-email', 'not-an-address');
    expect(create.code).not.toBe(0);
    expect(create.out).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining('--contact-email') });
    expect(await workspaceCount()).toBe(before);

    const created = await ops('workspace', 'create', '--name', 'Kept', '--contact-email', 'ops@kept.example');
    const id = created.out.workspace_id as string;
    const set = await ops('workspace', 'set-contact', '--workspace', id, '--email', 'ops@');
    expect(set.code).not.toBe(0);
    expect(set.out).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining('--email') });
    expect(await contactOf(id)).toBe('ops@kept.example');
  });

  it('refuses to set the contact of a workspace that does not exist (WORKSPACE_NOT_FOUND)', async () => {
    const res = await ops('workspace', 'set-contact', '--workspace', '00000000-0000-4000-8000-000000000000', '--email', 'ops@nowhere.example');
    expect([res.code, res.out.code]).toEqual([2, 'WORKSPACE_NOT_FOUND']);
  });
});
