// Upgrade safety: an empty database is brought to the head of /migrations
// (every migration, in order, once; a second run applies nothing; every file
// of /migrations listed), and
// MikroORM then finds no difference between the entities and the migrated
// schema, except the few constraints and indexes the migrations write by
// hand because an entity cannot express them.
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { MIGRATION_NAMES } from '../../migrations/index.js';
import { openOrm } from '../../src/adapters/persistence/orm.js';
import { prepareDatabase } from '../../src/bootstrap/prepare-database.js';

/** Written by hand in the migrations (partial unique indexes, checks of composite rules), which the entities cannot declare. */
const HAND_WRITTEN = [
  /faucet_settings_one_row/,
  /hd_account_keys_(change|coin_type)_check/,
  /withdrawals_ready_idx/,
  /sweeps_one_open_per_wallet/,
  /outgoing_transfers_one_cold_forward/,
  /energy_delegations_one_open/,
];

const name = `wt_migrate_${randomBytes(5).toString('hex')}`;
const adminUrl = inject('pgAdminUrl');
const admin = async (sql: string) => {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
};
const url = (() => {
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
})();

const racing = `${name}_race`;
afterAll(async () => {
  await admin(`drop database if exists "${name}" with (force)`);
  await admin(`drop database if exists "${racing}" with (force)`);
});

describe('migrations', () => {
  it('are listed, every file of /migrations once, in the order of their names', () => {
    const files = readdirSync(join(import.meta.dirname, '../../migrations'))
      .filter((f) => /^Migration\d+_\w+\.ts$/.test(f))
      .map((f) => f.replace(/\.ts$/, ''));
    expect([...MIGRATION_NAMES]).toEqual(files.sort());
  });


  it('are applied once when two processes migrate one empty database at the same time', async () => {
    await admin(`create database "${racing}" template template0`);
    const u = new URL(adminUrl);
    u.pathname = `/${racing}`;
    const both = await Promise.all([prepareDatabase(u.toString()), prepareDatabase(u.toString())]);
    expect(both.map((r) => r.applied.length).sort((a, b) => a - b)).toEqual([0, MIGRATION_NAMES.length]);
    const c = new pg.Client({ connectionString: u.toString() });
    await c.connect();
    try {
      const { rows } = await c.query<{ name: string }>('select name from mikro_orm_migrations order by id');
      expect(rows.map((r) => r.name)).toEqual(MIGRATION_NAMES);
    } finally {
      await c.end();
    }
  });

  it('bring an empty database to the head, once, and leave no drift from the entities', async () => {
    await admin(`create database "${name}" template template0`);
    expect((await prepareDatabase(url)).applied).toEqual(MIGRATION_NAMES);
    expect((await prepareDatabase(url)).applied).toEqual([]);
    const orm = await openOrm({ databaseUrl: url, poolMax: 2 });
    try {
      const diff = await orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false, dropTables: false });
      const statements = diff
        .split(/;\s*\n/)
        .map((s) => s.trim())
        .filter((s) => s.length > 0 && !HAND_WRITTEN.some((h) => h.test(s)));
      expect(statements).toEqual([]);
    } finally {
      await orm.close(true);
    }
  });
});
