// The withdrawals table through its repository on the real database: a row
// reads back exactly (amounts beyond 2^53 included), is invisible to another
// workspace and the other network, lists newest request first with filters,
// sums the last 24 hours per asset without cancelled or failed ones, and
// hands the chain-worker the PENDING rows not picked up yet, oldest first,
// and those whose transfer has moved past what they show.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { requestTransfer, type OutgoingTransfer } from '../../src/domain/transfers/outgoing-transfer.js';
import type { Withdrawal } from '../../src/domain/withdrawals/withdrawal.js';
import { createWorkspace, useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'withdrawal-repo' });
const uow = () => t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
const base = new Date('2026-11-25T10:00:00.000Z');

const withdrawal = (fields: Partial<Withdrawal>): Withdrawal => ({
  id: randomUUID(),
  workspaceId: t.ws.workspaceId,
  network: 'ETH_MAINNET',
  asset: 'USDT_ETH',
  amount: 100_000_000n,
  fee: 5_000_000n,
  netAmount: 95_000_000n,
  destination: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  status: 'PENDING',
  idempotencyKey: null,
  transferId: null,
  txid: null,
  failure: null,
  requestedAt: base,
  confirmedAt: null,
  updatedAt: base,
  ...fields,
});

describe('the withdrawals table', () => {
  it('stores, scopes, lists, sums and hands out withdrawals', async () => {
    const other = await createWorkspace(t.api, 'someone-else');
    const minutes = (n: number) => new Date(base.getTime() + n * 60_000);
    const big = withdrawal({ asset: 'ETH', amount: 2n ** 80n, fee: 10n ** 15n, netAmount: 2n ** 80n - 10n ** 15n, requestedAt: minutes(1), idempotencyKey: 'k-1' });
    const rows = [
      big,
      withdrawal({ requestedAt: minutes(2) }),
      withdrawal({ requestedAt: minutes(3), status: 'CANCELLED' }),
      withdrawal({ requestedAt: minutes(4), status: 'FAILED' }),
      withdrawal({ requestedAt: minutes(5), network: 'ETH_TESTNET' }),
      withdrawal({ requestedAt: minutes(6), workspaceId: other.workspaceId }),
      withdrawal({ requestedAt: minutes(7), status: 'PENDING_APPROVAL' }),
    ];
    await uow().run(async (tx) => {
      for (const r of rows) await tx.withdrawals.add(r);
    });
    await uow().run(async (tx) => {
      expect(await tx.withdrawals.get(t.ws.workspaceId, ['ETH_MAINNET'], big.id)).toEqual(big);
      expect(await tx.withdrawals.get(other.workspaceId, ['ETH_MAINNET'], big.id)).toBeNull();
      expect(await tx.withdrawals.get(t.ws.workspaceId, ['ETH_TESTNET'], big.id)).toBeNull();
      const page = await tx.withdrawals.list(t.ws.workspaceId, ['ETH_MAINNET', 'BSC_MAINNET', 'TRON_MAINNET'], {}, { page: 1, limit: 3 });
      expect(page.total).toBe(5);
      expect(page.data.map((w) => w.requestedAt)).toEqual([minutes(7), minutes(4), minutes(3)]);
      const failed = await tx.withdrawals.list(t.ws.workspaceId, ['ETH_MAINNET'], { status: 'FAILED' }, { page: 1, limit: 20 });
      expect(failed.data.map((w) => w.id)).toEqual([rows[3]!.id]);
      expect(await tx.withdrawals.list(t.ws.workspaceId, ['ETH_MAINNET'], { network: 'ETH_TESTNET' }, { page: 1, limit: 20 })).toMatchObject({ total: 0 });
      const totals = await tx.withdrawals.totalsSince(t.ws.workspaceId, ['ETH_MAINNET'], base);
      expect(new Map(totals.map((x) => [x.asset, x.amount]))).toEqual(
        new Map([
          ['ETH', 2n ** 80n],
          ['USDT_ETH', 200_000_000n], // minutes 2 and 7; cancelled and failed left out
        ]),
      );
      // Every workspace's, oldest first.
      expect(await tx.withdrawals.readyIds('ETH_MAINNET', 10)).toEqual([big.id, rows[1]!.id, rows[5]!.id]);
    });
    // A pick-up is seen by the next reader, and by its transfer.
    const transferId = randomUUID();
    await uow().run(async (tx) => {
      const w = (await tx.withdrawals.lock(rows[1]!.id))!;
      await tx.withdrawals.save({ ...w, transferId, updatedAt: minutes(10) });
    });
    await uow().run(async (tx) => {
      expect(await tx.withdrawals.readyIds('ETH_MAINNET', 10)).toEqual([big.id, rows[5]!.id]);
      expect((await tx.withdrawals.byTransfer(transferId))?.id).toBe(rows[1]!.id);
    });
  });

  it('hands the sending step only the withdrawals whose transfer has moved past what they show', async () => {
    const at = (n: number) => new Date(base.getTime() + (100 + n) * 60_000);
    // [withdrawal status, transfer status, behind?]
    const cases: [Withdrawal['status'], OutgoingTransfer['status'], boolean][] = [
      ['PENDING', 'REQUESTED', false],
      ['PENDING', 'SIGNED', false],
      ['PENDING', 'BROADCAST', true], // broadcast: PROCESSING is due
      ['PENDING', 'CONFIRMING', true],
      ['PROCESSING', 'BROADCAST', false],
      ['PROCESSING', 'CONFIRMING', true], // in a block: CONFIRMING is due
      ['CONFIRMING', 'CONFIRMING', false],
      ['CONFIRMING', 'BROADCAST', true], // out of its block again
      ['CONFIRMED', 'CONFIRMED', false], // ends reach the withdrawal through the pipeline's outcomes
      ['FAILED', 'FAILED', false],
    ];
    const ids: string[] = [];
    await uow().run(async (tx) => {
      for (const [i, [status, transferStatus]] of cases.entries()) {
        const transfer = requestTransfer({
          id: randomUUID(),
          kind: 'WITHDRAWAL',
          network: 'BSC_MAINNET',
          asset: 'USDT_BSC',
          from: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
          fromPath: { coinType: 60, account: 0, change: 0, index: 0 },
          to: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
          amount: 1n,
          requestedAt: at(i),
        });
        await tx.transfers.add(transfer);
        await tx.transfers.save({ ...transfer, status: transferStatus });
        const w = withdrawal({ network: 'BSC_MAINNET', asset: 'USDT_BSC', status, transferId: transfer.id, requestedAt: at(i) });
        await tx.withdrawals.add(w);
        ids.push(w.id);
      }
    });
    const behind = cases.flatMap(([, , b], i) => (b ? [ids[i]!] : []));
    expect(await uow().run((tx) => tx.withdrawals.behindTheirTransferIds('BSC_MAINNET', 50))).toEqual(behind);
    expect(await uow().run((tx) => tx.withdrawals.behindTheirTransferIds('BSC_MAINNET', 2))).toEqual(behind.slice(0, 2));
    expect(await uow().run((tx) => tx.withdrawals.behindTheirTransferIds('BSC_TESTNET', 50))).toEqual([]);
  });
});
