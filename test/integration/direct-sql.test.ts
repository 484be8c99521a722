// The repositories' statements straight to the pg connection
// (src/adapters/persistence/sql.ts): on the unit of work's own connection
// inside it, refused once it ended, on the pool outside; parameters inlined by
// MikroORM's formatter or bound by the driver, numbered as knex numbers them.
import type { Knex } from '@mikro-orm/knex';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openOrm } from '../../src/adapters/persistence/orm.js';
import { executeBound, executeInline, numberedPlaceholders } from '../../src/adapters/persistence/sql.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let db: TestDatabase;
let orm: MikroORM;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await openOrm({ databaseUrl: db.url, poolMax: 3 });
  await executeInline(orm.em, 'create table direct_sql_probe (id int primary key, note text, tags text[], doc jsonb)', [], undefined);
});
afterAll(async () => {
  await orm?.close();
  await db?.drop();
});

const count = async () => (await executeInline<{ n: number }>(orm.em, 'select count(*)::int as n from direct_sql_probe', [], undefined))[0]!.n;

describe('statements straight to the connection', () => {
  it('runs inside the unit of work on its connection: its own rows seen there, none outside, none after a rollback', async () => {
    const before = await count();
    let seenInside = -1;
    let seenOutside = -1;
    await orm.em
      .fork()
      .transactional(async (em) => {
        await executeInline(em, 'insert into direct_sql_probe (id, note) values (?, ?)', [1, 'inside'], em.getTransactionContext());
        await executeBound(em, 'insert into direct_sql_probe (id, note) values (?, ?)', [2, 'bound inside']);
        seenInside = (await executeInline<{ n: number }>(em, 'select count(*)::int as n from direct_sql_probe', [], em.getTransactionContext()))[0]!.n;
        seenOutside = await count();
        throw new Error('roll back');
      })
      .catch((err: unknown) => {
        if ((err as Error).message !== 'roll back') throw err;
      });
    expect([seenInside, seenOutside, await count()]).toEqual([before + 2, before, before]);
  });

  it('refuses a statement on a transaction that has ended, instead of running it on a connection given back to the pool', async () => {
    let ended: Knex.Transaction | undefined;
    await orm.em.fork().transactional(async (em) => {
      ended = em.getTransactionContext<Knex.Transaction>();
    });
    await expect(executeInline(orm.em, 'insert into direct_sql_probe (id, note) values (?, ?)', [3, 'late'], ended)).rejects.toThrow(/already complete/);
    expect((await executeInline(orm.em, 'select 1 from direct_sql_probe where id = 3', [], undefined)).length).toBe(0);
  });

  it('keeps values verbatim: a question mark or a $1 inside a value, an array, a JSON document', async () => {
    const note = "what? $1 it's 100% \\ \"quoted\"";
    await executeInline(orm.em, 'insert into direct_sql_probe (id, note, tags) values (?, ?, ?::text[])', [10, note, '{a,"b c"}'], undefined);
    await executeBound(orm.em, 'insert into direct_sql_probe (id, note, tags, doc) values (?, ?, ?, ?::jsonb)', [11, note, ['x', 'y?'], JSON.stringify({ k: 'v?' })]);
    const rows = await executeInline<{ id: number; note: string; tags: string[]; doc: unknown }>(orm.em, 'select id, note, tags, doc from direct_sql_probe where id in (?) order by id', [[10, 11]], undefined);
    expect(rows).toEqual([
      { id: 10, note, tags: ['a', 'b c'], doc: null },
      { id: 11, note, tags: ['x', 'y?'], doc: { k: 'v?' } },
    ]);
  });

  it('numbers bound placeholders as knex does: \\? is a literal question mark (the jsonb operator), the count must match', async () => {
    expect(numberedPlaceholders('a = ? and b ? \\? c = ?')).toEqual({ text: 'a = $1 and b $2 ? c = $3', count: 3 });
    expect(numberedPlaceholders('select ?? from t')).toBeNull();
    const [row] = await executeBound<{ has: boolean }>(orm.em, `select ?::jsonb \\? ? as has`, [JSON.stringify({ a: 1 }), 'a']);
    expect(row!.has).toBe(true);
    await expect(executeBound(orm.em, 'select ? as a, ? as b', [1])).rejects.toThrow(/Expected 2 bindings, saw 1/);
    await expect(executeBound(orm.em, 'select ?? from direct_sql_probe', ['id'])).rejects.toThrow(/no \?\? identifiers/);
    await expect(executeBound(orm.em, 'select ? as a', [undefined])).rejects.toThrow(/Undefined binding/);
  });

  it('gives one array of rows per statement of a text of several, as MikroORM did', async () => {
    const out = await executeInline<unknown[]>(orm.em, 'select 1 as a; select 2 as b', [], undefined);
    expect(out).toEqual([[{ a: 1 }], [{ b: 2 }]]);
  });

  it('gives every pooled connection back: many more statements at once than the pool holds all answer, a failing one included', async () => {
    const failing = executeInline(orm.em, 'select * from no_such_table', [], undefined).catch((e: unknown) => e);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => executeBound<{ n: number }>(orm.em, 'select ?::int as n', [i])));
    expect(answers.map((r) => r[0]!.n)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(((await failing) as { code?: string }).code).toBe('42P01');
    expect(await count()).toBeGreaterThanOrEqual(2);
  });

  it('prepares a statement once per connection and then only binds it: the same answers, in and out of a transaction', async () => {
    const text = 'select ?::int * 2 as n, (select count(*)::int from pg_prepared_statements where statement like ?) as prepared';
    // Every connection of the pool (3) answers it many times; each prepares it once.
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => executeBound<{ n: number; prepared: number }>(orm.em, text, [i, '%pg_prepared_statements%'], { prepare: true })));
    expect(answers.map((r) => r[0]!.n)).toEqual(Array.from({ length: 30 }, (_, i) => i * 2));
    expect(answers.every((r) => r[0]!.prepared === 1)).toBe(true);
    await orm.em.fork().transactional(async (em) => {
      await executeBound(em, 'insert into direct_sql_probe (id, note) values (?, ?)', [40, 'prepared'], { prepare: true });
      const [row] = await executeBound<{ n: number; prepared: number }>(em, text, [21, '%direct_sql_probe%'], { prepare: true });
      expect(row).toEqual({ n: 42, prepared: 1 });
    });
    await executeBound(orm.em, 'insert into direct_sql_probe (id, note) values (?, ?)', [41, 'prepared again'], { prepare: true });
    const rows = await executeInline<{ id: number; note: string }>(orm.em, 'select id, note from direct_sql_probe where id in (40, 41) order by id', [], undefined);
    expect(rows).toEqual([
      { id: 40, note: 'prepared' },
      { id: 41, note: 'prepared again' },
    ]);
  });

  it('prepares nothing for an ORM opened with preparedStatements: false (DATABASE_PREPARED_STATEMENTS=false)', async () => {
    const unnamed = await openOrm({ databaseUrl: db.url, poolMax: 1, preparedStatements: false });
    try {
      const text = 'select ?::int + 1 as n, (select count(*)::int from pg_prepared_statements) as prepared';
      for (let i = 0; i < 3; i++) {
        const [row] = await executeBound<{ n: number; prepared: number }>(unnamed.em, text, [i], { prepare: true });
        expect(row).toEqual({ n: i + 1, prepared: 0 });
      }
    } finally {
      await unnamed.close();
    }
  });
});
