// The outgoing transfers' work list on the real database: however many
// transfers wait on the chain, a new one is handed out to be signed in the
// same step, and each group comes oldest first.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { requestTransfer } from '../../src/domain/transfers/outgoing-transfer.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'transfer-repo' });
const uow = () => t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
const sql = (text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute(text, params);

describe('the outgoing transfers’ work list', () => {
  it('hands out up to the limit of new transfers and up to the limit of those on their way, oldest first', async () => {
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 26, 9, minute));
    const transfer = (minute: number) =>
      requestTransfer({
        id: randomUUID(),
        kind: 'WITHDRAWAL',
        network: 'BSC_TESTNET',
        asset: 'USDT_BSC',
        from: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
        fromPath: servicePath('BSC_TESTNET', 'treasury'),
        to: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
        amount: 1n,
        ownerId: randomUUID(),
        requestedAt: at(minute),
        gasLimit: 60_000n,
        feeCap: null,
      });
    const waiting = [1, 2, 3, 4].map(transfer); // on their way: older than any new one
    const fresh = [5, 6, 7].map(transfer);
    const done = transfer(0);
    await uow().run(async (tx) => {
      for (const x of [...waiting, ...fresh, done]) await tx.transfers.add(x);
    });
    await sql(`update outgoing_transfers set status = 'BROADCAST' where id in (?)`, [waiting.map((x) => x.id)]);
    await sql(`update outgoing_transfers set status = 'CONFIRMED' where id = ?`, [done.id]);
    const ids = await uow().run((tx) => tx.transfers.openIds('BSC_TESTNET', 2));
    expect(ids).toEqual([waiting[0]!.id, waiting[1]!.id, fresh[0]!.id, fresh[1]!.id]);
    expect(await uow().run((tx) => tx.transfers.openIds('ETH_TESTNET', 2))).toEqual([]);
  });
});
