// The sandbox's embedded PostgreSQL keeps to its owner: a random superuser
// password kept with the sandbox secrets; a sandbox made when the password was
// the well-known `postgres` gets its own at the next start; and "delete
// DATA_DIR to start over" starts over even where the cluster lives outside it.
import { existsSync, mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/adapters/sandbox/embedded-postgres.js';
import { sandboxEncryptionKey } from '../../src/adapters/sandbox/sandbox-secrets.js';
import { removeDataDir } from '../support/data-dir.js';

const parent = mkdtempSync(join(tmpdir(), 'wallet-sandbox-db-'));
const dataDir = join(parent, 'data');
afterAll(() => {
  removeDataDir(dataDir);
  rmSync(parent, { recursive: true, force: true });
});

async function login(url: string, password?: string): Promise<number | string> {
  const u = new URL(url);
  if (password !== undefined) u.password = password;
  const client = new pg.Client({ connectionString: u.toString() });
  try {
    await client.connect();
    return (await client.query<{ ok: number }>('select 1 as ok')).rows[0]!.ok;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('the sandbox database', () => {
  it('takes its own random password, replaces the well-known one of an older sandbox, and starts over once DATA_DIR is deleted', async () => {
    // As npm start does: the sandbox's secrets first, then its database.
    const start = () => (sandboxEncryptionKey(dataDir), startEmbeddedPostgres({ dataDir, port: undefined }));
    const first = await start();
    const password = readFileSync(join(dataDir, 'secrets', 'postgres.password'), 'utf8').trim();
    expect(new URL(first.url).password).toBe(password);
    expect(await login(first.url)).toBe(1);
    expect(await login(first.url, 'postgres')).toBe('28P01');
    const marker = join(dataDir, 'postgres.cluster');
    expect(existsSync(marker)).toBe(process.getuid?.() === 0); // as root a 0700 DATA_DIR keeps its cluster outside

    // A sandbox as it was made before: the well-known password, and no password file.
    const client = new pg.Client({ connectionString: first.url });
    await client.connect();
    await client.query("alter role postgres with password 'postgres'");
    await client.query('create table kept (v int)');
    await client.end();
    await first.stop();
    rmSync(join(dataDir, 'secrets', 'postgres.password'));

    const second = await start();
    const renewed = readFileSync(join(dataDir, 'secrets', 'postgres.password'), 'utf8').trim();
    expect(renewed).not.toBe(password);
    expect(await login(second.url)).toBe(1);
    expect(await login(second.url, 'postgres')).toBe('28P01');
    const kept = new pg.Client({ connectionString: second.url });
    await kept.connect();
    expect((await kept.query("select to_regclass('kept') is not null as there")).rows[0]).toEqual({ there: true });
    await kept.end();
    await second.stop();

    // DATA_DIR deleted (its cluster left behind where it lives outside): the next start is a new, empty sandbox.
    const cluster = existsSync(marker) ? readFileSync(marker, 'utf8').trim() : null;
    rmSync(dataDir, { recursive: true, force: true });
    await new Promise((r) => setTimeout(r, 20)); // the new secrets are younger than the cluster left behind
    const third = await start();
    try {
      expect(await login(third.url)).toBe(1);
      const fresh = new pg.Client({ connectionString: third.url });
      await fresh.connect();
      expect((await fresh.query("select to_regclass('kept') is not null as there")).rows[0]).toEqual({ there: false });
      await fresh.end();
      if (cluster) expect(readFileSync(marker, 'utf8').trim()).toBe(cluster);
    } finally {
      await third.stop();
    }
  }, 120_000);
});
