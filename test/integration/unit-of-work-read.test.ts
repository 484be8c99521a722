// UnitOfWork.read: the hot read paths' way to the database without a
// transaction. Alone it reads what is committed; inside a unit of work it
// joins that transaction (and sees its uncommitted writes); it refuses to
// publish events or jobs, which need the transaction of a run.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import { creditDeposit } from '../../src/domain/ledger/entries.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'uow-read' });

describe('UnitOfWork.read', () => {
  it('reads without a transaction, joins one it is inside, and refuses to publish', async () => {
    const uow = t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const workspaceId = t.ws.workspaceId;
    const balance = (u: Pick<UnitOfWork, 'read'>) => u.read(async (tx) => (await tx.ledger.balances(workspaceId, ['ETH_TESTNET'], {}))[0]?.available ?? 0n);
    expect(await balance(uow)).toBe(0n);
    await uow.run(async (tx) => {
      await tx.ledger.post(creditDeposit({ id: randomUUID(), network: 'ETH_TESTNET', at: new Date(), depositId: randomUUID(), workspaceId, gross: Amount.parse('5', 'USDT_ETH'), fee: Amount.zero('USDT_ETH') }));
      expect(await balance(uow)).toBe(5_000_000n); // inside the run: its own uncommitted write
      expect(await Promise.all([balance(uow), uow.read(async () => 'joined')])).toEqual([5_000_000n, 'joined']);
    });
    expect(await balance(uow)).toBe(5_000_000n);
    await expect(uow.read((tx) => tx.events.publish({ workspaceId, side: 'test', event: 'BENEFICIARY_ADDED', data: {} as never }))).rejects.toThrow(/cannot be written in a read/);
    await expect(uow.read((tx) => tx.jobs.enqueue('webhook.reconcile', {}))).rejects.toThrow(/cannot be written in a read/);
  });
});
