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
import { TransferRefused, type ChainSender, type TransferCall } from '../../src/domain/transfers/ports.js';
import { uniqueCall, useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'withdrawal-ops', env: { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' } });
const OUTSIDE = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);

async function ops(...argv: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const out: string[] = [];
  const code = await runOps(WITHDRAWAL_COMMANDS, [...argv, '--json'], { resolve: (tok) => t.api.infra.container.resolve(tok as never) }, { out: (s) => out.push(s), err: () => undefined });
  return { code, json: JSON.parse(out[0]!) as Record<string, unknown> };
}

async function fund(amount: string, asset: 'USDT_ETH' | 'USDC_ETH' = 'USDT_ETH') {
  await t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork).run((tx) =>
    tx.ledger.post(
      creditDeposit({ id: randomUUID(), network: 'ETH_TESTNET', at: new Date(), depositId: randomUUID(), workspaceId: t.ws.workspaceId, gross: Amount.parse(amount, asset), fee: Amount.zero(asset) }),
    ),
  );
}
const withdraw = async (amount = '10', asset = 'USDT_ETH', destination = OUTSIDE) => {
  const res = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/withdrawals', { chain: 'ETH', asset, amount, destination_address: destination });
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

  it('holds back only what cannot go: a short asset holds its later withdrawals, a withdrawal failing alone holds none, a refused one fails, short gas holds all', async () => {
    await sql(`update withdrawals set status = 'CANCELLED' where workspace_id = ? and status = 'PENDING'`, [t.ws.workspaceId]);
    await fund('100');
    await fund('100', 'USDC_ETH');
    const before = Number(await available());
    const container = t.api.infra.container.createChildContainer();
    container.registerInstance(TransferOutcomes, new TransferOutcomes());
    const send = container.resolve(SendWithdrawals);
    const strange = '0x1111111111111111111111111111111111111111';
    const blocked = '0x2222222222222222222222222222222222222222';
    let gas = 10n ** 20n;
    const node = treasuryNode({
      nativeBalance: async () => gas,
      tokenBalance: async (asset) => (asset === 'USDC_ETH' ? 0n : 10n ** 15n), // the treasury holds no USDC
      gasLimit: async (call: TransferCall) => {
        if (call.to === strange) throw new Error('the node answers something strange for this one');
        if (call.to === blocked) throw new TransferRefused('ETH_TESTNET', 'the USDT_ETH contract refuses the transfer');
        return 60_000n;
      },
    });
    const usdc1 = await withdraw('10', 'USDC_ETH');
    const odd = await withdraw('10', 'USDT_ETH', strange);
    const refused = await withdraw('10', 'USDT_ETH', blocked);
    const usdt = await withdraw('10');
    const usdc2 = await withdraw('10', 'USDC_ETH');
    const report = await send.step(node, { batch: 10 });
    const rows = new Map(
      (await sql<{ id: string; status: string; transfer_id: string | null }>(`select id, status, transfer_id from withdrawals where id in (?)`, [[usdc1, odd, refused, usdt, usdc2]])).map((r) => [r.id, r]),
    );
    expect(rows.get(usdt)).toMatchObject({ status: 'PENDING', transfer_id: expect.any(String) });
    for (const id of [usdc1, odd, usdc2]) expect(rows.get(id)).toMatchObject({ status: 'PENDING', transfer_id: null });
    expect(rows.get(refused)).toMatchObject({ status: 'FAILED', transfer_id: null });
    expect(await events(refused)).toEqual(['WITHDRAWAL_FAILED']);
    expect(report).toMatchObject({ pickedUp: 1, refused: 1, errors: [{ kind: 'withdrawal', id: odd, message: expect.stringMatching(/strange/) }], treasuryShort: { asset: 'USDC_ETH', available: 0n, needed: 10_000_000n - 5_000_000n } });
    expect(Number(await available())).toBe(before - 20); // the two USDT withdrawals still locked (the refused one released)
    // Without gas, nothing goes, whatever its asset.
    await sql(`update withdrawals set status = 'CANCELLED' where id in (?)`, [[usdc1, odd, usdc2]]);
    gas = 0n;
    const later = await withdraw('10');
    const starved = await send.step(node, { batch: 10 });
    // It holds nothing, and the USDT payout picked up above (requested, not signed yet) has its gas reserved at the
    // node's quote: 60,000 × 2 wei.
    expect(starved.treasuryShort).toMatchObject({ asset: 'ETH', available: -120_000n });
    expect((await sql<{ transfer_id: string | null }>(`select transfer_id from withdrawals where id = ?`, [later]))[0]!.transfer_id).toBeNull();
    await sql(`update withdrawals set status = 'CANCELLED' where workspace_id = ? and status = 'PENDING'`, [t.ws.workspaceId]);
  });

  it('lets exactly one of a cancel and the chain-worker’s pick-up win, every time', async () => {
    await fund('1000');
    await sql(`update withdrawals set status = 'CANCELLED' where workspace_id = ? and status = 'PENDING'`, [t.ws.workspaceId]); // earlier tests' leftovers out of the way
    const container = t.api.infra.container.createChildContainer();
    container.registerInstance(TransferOutcomes, new TransferOutcomes());
    const send = container.resolve(SendWithdrawals);
    const cancel = t.api.infra.container.resolve(CancelWithdrawal);
    const node = treasuryNode();
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

/** The pick-up's view of an ETH_TESTNET node: a treasury holding plenty, fees, a gas estimate; nothing is sent. */
function treasuryNode(overrides: Partial<ChainSender> = {}): ChainSender {
  const unused = () => Promise.reject(new Error('not used'));
  return {
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
    sentReceiptOnEveryNode: unused,
    revertedOnEveryNode: unused,
    agreedReceipt: unused,
    settledNonce: unused,
    ...overrides,
  };
}

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
