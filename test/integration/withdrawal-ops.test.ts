// The operator's withdrawal commands against the real database
// (docs/operations.md#withdrawals): approve, reject, hold and release with
// their states, events and ledger effects; freeze and unfreeze; unknown ids;
// and a client's cancel racing the chain-worker's pick-up, where exactly one
// of them wins every time (the node is a stub port: nothing is sent).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runOps } from '../../src/adapters/cli/run-ops.js';
import { WITHDRAWAL_COMMANDS } from '../../src/adapters/cli/withdrawal-commands.js';
import { TOKENS } from '../../src/application/tokens.js';
import { TransferOutcomes } from '../../src/application/transfers/process-transfers.js';
import { CancelWithdrawal } from '../../src/application/withdrawals/cancel-withdrawal.js';
import { SendWithdrawals } from '../../src/application/withdrawals/send-withdrawals.js';
import { creditDeposit } from '../../src/domain/ledger/entries.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import type { ChainSender } from '../../src/domain/transfers/ports.js';
import { uniqueCall, useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'withdrawal-ops', env: { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' } });
const OUTSIDE = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);

async function ops(...argv: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const out: string[] = [];
  const code = await runOps(WITHDRAWAL_COMMANDS, [...argv, '--json'], { resolve: (tok) => t.api.infra.container.resolve(tok as never) }, { out: (s) => out.push(s), err: () => undefined });
  return { code, json: JSON.parse(out[0]!) as Record<string, unknown> };
}

async function fund(amount: string) {
  await t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork).run((tx) =>
    tx.ledger.post(
      creditDeposit({ id: randomUUID(), network: 'ETH_TESTNET', at: new Date(), depositId: randomUUID(), workspaceId: t.ws.workspaceId, gross: Amount.parse(amount, 'USDT_ETH'), fee: Amount.zero('USDT_ETH') }),
    ),
  );
}
const withdraw = async (amount = '10') => {
  const res = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/withdrawals', { chain: 'ETH', asset: 'USDT_ETH', amount, destination_address: OUTSIDE });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const available = async () => ((await uniqueCall(t.api.baseUrl, t.ws.testKey, 'GET', '/v2/balances?asset=USDT_ETH')).body.data[0] as { available: string }).available;
const events = async (id: string) => (await sql<{ event: string }>(`select event from webhook_events where payload::jsonb -> 'data' ->> 'withdrawal_id' = ? order by created_at`, [id])).map((e) => e.event);

describe('ops withdrawal and workspace freeze', () => {
  it('approves or rejects a withdrawal waiting for approval, holds and releases a pending one', async () => {
    await fund('100');
    const a = await withdraw();
    const b = await withdraw();
    await sql(`update withdrawals set status = 'PENDING_APPROVAL' where id in (?, ?)`, [a, b]);
    expect((await ops('withdrawal', 'approve', '--id', a)).json.status).toBe('PENDING');
    expect(await ops('withdrawal', 'reject', '--id', a)).toMatchObject({ code: 2, json: { code: 'UNPROCESSABLE' } });
    expect(await available()).toBe('80.000000');
    expect((await ops('withdrawal', 'reject', '--id', b)).json.status).toBe('CANCELLED');
    expect(await available()).toBe('90.000000');
    expect(await events(b)).toEqual(['WITHDRAWAL_CANCELLED']);
    expect((await ops('withdrawal', 'hold', '--id', a)).json.status).toBe('UNDER_REVIEW');
    expect(await events(a)).toEqual(['WITHDRAWAL_HELD']);
    expect(await ops('withdrawal', 'hold', '--id', a)).toMatchObject({ code: 2, json: { code: 'UNPROCESSABLE' } });
    expect((await ops('withdrawal', 'release', '--id', a)).json.status).toBe('PENDING');
    expect(await ops('withdrawal', 'approve', '--id', randomUUID())).toMatchObject({ code: 2, json: { code: 'NOT_FOUND' } });
    expect(await ops('withdrawal', 'approve', '--id', 'nope')).toMatchObject({ code: 2, json: { code: 'VALIDATION_ERROR' } });
  });

  it('freezes a workspace’s withdrawals: new requests are WITHDRAWALS_FROZEN, nothing locked; unfreezing lets them through', async () => {
    await fund('20');
    const before = await available();
    expect((await ops('workspace', 'freeze', '--workspace', t.ws.workspaceId)).json).toEqual({ workspace_id: t.ws.workspaceId, withdrawals_frozen: true });
    const refused = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/withdrawals', { chain: 'ETH', asset: 'USDT_ETH', amount: '10', destination_address: OUTSIDE });
    expect([refused.status, refused.body.code]).toEqual([422, 'WITHDRAWALS_FROZEN']);
    expect(await available()).toBe(before);
    await ops('workspace', 'unfreeze', '--workspace', t.ws.workspaceId);
    await withdraw();
    expect(await ops('workspace', 'freeze', '--workspace', randomUUID())).toMatchObject({ code: 2, json: { code: 'WORKSPACE_NOT_FOUND' } });
  });

  it('lets exactly one of a cancel and the chain-worker’s pick-up win, every time', async () => {
    await fund('1000');
    await sql(`update withdrawals set status = 'CANCELLED' where workspace_id = ? and status = 'PENDING'`, [t.ws.workspaceId]); // earlier tests' leftovers out of the way
    const container = t.api.infra.container.createChildContainer();
    container.registerInstance(TransferOutcomes, new TransferOutcomes());
    const send = container.resolve(SendWithdrawals);
    const cancel = t.api.infra.container.resolve(CancelWithdrawal);
    const unused = () => Promise.reject(new Error('not used'));
    const node: ChainSender = {
      network: 'ETH_TESTNET',
      nativeBalance: async () => 10n ** 20n,
      tokenBalance: async () => 10n ** 15n,
      feeQuote: async () => ({ maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }),
      gasLimit: async () => 60_000n,
      burnEstimate: async () => null,
      finalizedTime: async () => null,
      head: unused,
      minedNonce: unused,
      sign: unused,
      broadcast: unused,
      sentReceipt: unused,
    };
    for (let i = 0; i < 10; i++) {
      const id = await withdraw('6');
      const [, cancelled] = await Promise.allSettled([send.step(node, { batch: 10 }), cancel.execute({ ...principal(), side: 'test' }, id)]);
      const [row] = await sql<{ status: string; transfer_id: string | null }>(`select status, transfer_id from withdrawals where id = ?`, [id]);
      if (cancelled.status === 'fulfilled') {
        expect(row).toEqual({ status: 'CANCELLED', transfer_id: null });
      } else {
        expect((cancelled.reason as { code: string }).code).toBe('WITHDRAWAL_NOT_CANCELLABLE');
        expect(row!.status).toBe('PENDING');
        expect(row!.transfer_id).not.toBeNull();
      }
      const transfers = await sql<{ n: string }>(`select count(*)::text as n from outgoing_transfers where owner_id = ?`, [id]);
      expect(transfers[0]!.n).toBe(cancelled.status === 'fulfilled' ? '0' : '1');
    }
  }, 60_000);
});

function principal() {
  return {
    workspaceId: t.ws.workspaceId,
    apiKeyId: randomUUID(),
    keyId: 'sk_test_x',
    side: 'test' as const,
    scopes: new Set(['withdrawals:write', 'withdrawals:read'] as const),
    restrictions: { allowedIps: [], expiresAt: null },
  };
}
