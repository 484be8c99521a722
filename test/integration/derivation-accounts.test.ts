// The derivation account of a (workspace, network), kept by the process once
// its row is known to be committed: a wallet create asks the table for it the
// first time only, and an account a rolled-back transaction inserted is never
// kept (the next create makes the account again and can allocate from it).
import { describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'derivation-accounts' });
const uow = () => t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
const sql = <T>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);

class RolledBack extends Error {}

describe('derivation accounts', () => {
  it('are read from the table once, then kept', async () => {
    const ws = t.ws.workspaceId;
    const made = await uow().run((tx) => tx.derivation.account(ws, 'ETH_TESTNET'));
    // Committed: the next lookup reads it and keeps it.
    expect(await uow().run((tx) => tx.derivation.account(ws, 'ETH_TESTNET'))).toBe(made);
    // Moved away behind the process's back: a lookup that asked the table would now make another account.
    await sql(`update hd_accounts set network = 'BSC_MAINNET' where account = ?`, [made]);
    try {
      expect(await uow().run((tx) => tx.derivation.account(ws, 'ETH_TESTNET'))).toBe(made);
    } finally {
      await sql(`update hd_accounts set network = 'ETH_TESTNET' where account = ?`, [made]);
    }
  });

  it('never keep one that a transaction inserted and then rolled back, even when it read it again', async () => {
    const ws = t.ws.workspaceId;
    let gone = -1;
    await uow()
      .run(async (tx) => {
        gone = await tx.derivation.account(ws, 'TRON_TESTNET');
        // Its own insert, read back in the same transaction: not known to be committed.
        expect(await tx.derivation.account(ws, 'TRON_TESTNET')).toBe(gone);
        throw new RolledBack();
      })
      .catch((err: unknown) => {
        if (!(err instanceof RolledBack)) throw err;
      });
    expect(await sql(`select account from hd_accounts where account = ?`, [gone])).toEqual([]);
    const account = await uow().run((tx) => tx.derivation.account(ws, 'TRON_TESTNET'));
    expect(account).not.toBe(gone);
    expect(await uow().run((tx) => tx.derivation.nextIndex(account))).toBe(0);
  });
});
