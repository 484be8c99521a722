// The dispatcher settles fee commitments on its own: it schedules
// commitment.settle hourly, and the job (here sent at once, with the
// dispatcher's clock in mid-March) settles the closed months a commitment
// covered, once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMITMENT_COMMANDS } from '../../src/adapters/cli/commitment-commands.js';
import { enqueueNow } from '../../src/adapters/jobs/pg-boss-jobs.js';
import { runOps } from '../../src/adapters/cli/run-ops.js';
import { startDispatcher, type RunningDispatcher } from '../../src/bootstrap/dispatcher.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { createWorkspace, startTestApi, testConfig, type TestApi } from '../support/harness.js';
import { poll } from '../support/processes.js';

let db: TestDatabase;
let api: TestApi;
let dispatcher: RunningDispatcher;

beforeAll(async () => {
  db = await createTestDatabase();
  const config = testConfig(db.url);
  api = await startTestApi(config);
  dispatcher = await startDispatcher(config, { clock: { now: () => new Date('2026-03-15T10:05:00Z') } });
});
afterAll(async () => {
  await dispatcher?.close();
  await api?.close();
  await db?.drop();
});

describe('the commitment.settle job', () => {
  it('is scheduled hourly, and settles each closed month a commitment covered exactly once', async () => {
    const sql = (text: string, params: unknown[] = []) => api.infra.orm.em.getConnection().execute(text, params);
    expect(await sql(`select cron, timezone from pgboss.schedule where name = 'commitment.settle'`)).toEqual([{ cron: '5 * * * *', timezone: 'UTC' }]);
    const ws = await createWorkspace(api, 'commitment-job');
    const out: string[] = [];
    const args = ['commitment', 'create', '--workspace', ws.workspaceId, '--floor', '28', '--settlement-asset', 'USDT_ETH', '--starts-at', '2026-01-15T00:00:00Z', '--backdate', '--json'];
    expect(await runOps(COMMITMENT_COMMANDS, args, { resolve: (tok) => api.infra.container.resolve(tok as never) }, { out: (s) => out.push(s), err: () => undefined })).toBe(0);
    const months = () => sql(`select to_char(period_start at time zone 'UTC', 'YYYY-MM') as month, prorated_floor::text as floor, status from commitment_adjustments where workspace_id = ? order by period_start`, [ws.workspaceId]);
    await enqueueNow(dispatcher.infra.boss, 'commitment.settle', {});
    await poll(async () => ((await months()).length === 2 ? true : undefined), 20_000, 'January and February settled');
    await enqueueNow(dispatcher.infra.boss, 'commitment.settle', {});
    await new Promise((r) => setTimeout(r, 1500));
    // January: the 15th to the 31st, 17 of 31 days of 28; February whole. March is not over.
    expect(await months()).toEqual([
      { month: '2026-01', floor: '15354839', status: 'OPEN' },
      { month: '2026-02', floor: '28000000', status: 'OPEN' },
    ]);
    const events = await sql(`select count(*)::int as n from webhook_events where workspace_id = ? and event = 'COMMITMENT_ADJUSTMENT_EMITTED'`, [ws.workspaceId]);
    expect(events).toEqual([{ n: 2 }]);
  });
});
