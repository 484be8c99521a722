// The outbox rule against the real database: state and the job it triggers
// commit together or not at all, and a committed job reaches another process.
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import { CreateWorkspace } from '../../src/application/workspaces/create-workspace.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { PG_BOSS_SCHEMA } from '../../src/adapters/jobs/pg-boss-jobs.js';
import { openInfrastructure, type Infrastructure } from '../../src/bootstrap/infrastructure.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { testConfig } from '../support/harness.js';

let db: TestDatabase;
let infra: Infrastructure;
let consumer: PgBoss;

beforeAll(async () => {
  db = await createTestDatabase();
  infra = await openInfrastructure(testConfig(db.url), { processName: 'test', runsWorkers: false });
  // A second pg-boss instance stands for another process reading the queue.
  consumer = new PgBoss({ connectionString: db.url, schema: PG_BOSS_SCHEMA, supervise: false, schedule: false });
  await consumer.start();
});

afterAll(async () => {
  await consumer?.stop({ graceful: false, wait: true });
  await infra?.close();
  await db?.drop();
});

const countWorkspaces = async (name: string) =>
  (await infra.orm.em.getConnection().execute<{ n: string }[]>('select count(*) as n from workspaces where name = ?', [name]))[0]!.n;

describe('unit of work with jobs (outbox)', () => {
  it('a rollback leaves neither the row nor the job', async () => {
    const uow = infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const id = '11111111-1111-4111-8111-111111111111';
    await expect(
      uow.run(async (tx) => {
        const now = new Date();
        await tx.workspaces.add({ id, name: 'rolled-back', status: 'ACTIVE', withdrawalsFrozen: false, contactEmail: null, createdAt: now, updatedAt: now });
        await tx.jobs.enqueue('workspace.created', { workspaceId: id });
        throw new Error('boom after enqueue');
      }),
    ).rejects.toThrow('boom after enqueue');
    expect(await countWorkspaces('rolled-back')).toBe('0');
    expect(await consumer.fetch('workspace.created')).toEqual([]);
  });

  it('a commit makes the job visible to another pg-boss instance, with the payload of the catalogue', async () => {
    const created = await infra.container.resolve(CreateWorkspace).execute({ name: 'committed' });
    expect(await countWorkspaces('committed')).toBe('1');
    const jobs = await consumer.fetch<{ workspaceId: string }>('workspace.created');
    expect(jobs).toHaveLength(1);
    expect(jobs![0]!.data).toEqual({ workspaceId: created.workspaceId });
  });

  it('refuses a payload that does not match the catalogue, and rolls back the state with it', async () => {
    const uow = infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const id = '22222222-2222-4222-8222-222222222222';
    await expect(
      uow.run(async (tx) => {
        const now = new Date();
        await tx.workspaces.add({ id, name: 'bad-payload', status: 'ACTIVE', withdrawalsFrozen: false, contactEmail: null, createdAt: now, updatedAt: now });
        await tx.jobs.enqueue('workspace.created', { workspaceId: 'not-a-uuid' });
      }),
    ).rejects.toThrow();
    expect(await countWorkspaces('bad-payload')).toBe('0');
  });
});
