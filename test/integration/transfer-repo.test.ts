// The outgoing transfers' work list on the real database: however many
// transfers wait on the chain, a new one is handed out to be signed in the
// same step, and each group comes oldest first; a transfer the node answers
// oddly about waits alone while the others are signed and sent; what a sender
// can still pay is judged under its row, one unit of work at a time.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { requestTransfer } from '../../src/domain/transfers/outgoing-transfer.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { ProcessTransfers, TransferOutcomes } from '../../src/application/transfers/process-transfers.js';
import type { ChainSender, UnsignedTransfer } from '../../src/domain/transfers/ports.js';
import { useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'transfer-repo' });
const uow = () => t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
const sql = (text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute(text, params);

const at = (minute: number) => new Date(Date.UTC(2026, 10, 26, 9, minute));
/** A WITHDRAWAL transfer requested at 09:MM, from one fixed sender. */
const transfer = (minute: number, network: 'BSC_TESTNET' | 'ETH_TESTNET' = 'BSC_TESTNET', to = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359') =>
  requestTransfer({
    id: randomUUID(),
    kind: 'WITHDRAWAL',
    network,
    asset: network === 'BSC_TESTNET' ? 'USDT_BSC' : 'USDT_ETH',
    from: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    fromPath: servicePath(network, 'treasury'),
    to,
    amount: 1n,
    ownerId: randomUUID(),
    requestedAt: at(minute),
    gasLimit: 60_000n,
    feeCap: null,
  });

describe('the outgoing transfers’ work list', () => {
  it('hands out up to the limit of new transfers and up to the limit of those on their way, oldest first', async () => {
    const waiting = [1, 2, 3, 4].map((m) => transfer(m)); // on their way: older than any new one
    const fresh = [5, 6, 7].map((m) => transfer(m));
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

  it('lets a transfer the node answers oddly about wait alone, while the others are signed and broadcast', async () => {
    const odd = transfer(10, 'ETH_TESTNET', '0x1111111111111111111111111111111111111111');
    const fine = transfer(11, 'ETH_TESTNET', '0x2222222222222222222222222222222222222222');
    await uow().run(async (tx) => {
      for (const x of [odd, fine]) await tx.transfers.add(x);
    });
    const container = t.api.infra.container.createChildContainer();
    container.registerInstance(TransferOutcomes, new TransferOutcomes());
    const transfers = container.resolve(ProcessTransfers);
    const sent: string[] = [];
    const unused = () => Promise.reject(new Error('not used'));
    const node: ChainSender = {
      network: 'ETH_TESTNET',
      nativeBalance: unused,
      tokenBalance: unused,
      feeQuote: async () => ({ maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }),
      gasLimit: unused,
      burnEstimate: async () => null,
      finalizedTime: async () => null,
      head: unused,
      minedNonce: async () => 0n,
      sign: async (tx: UnsignedTransfer) => {
        if (tx.to === odd.to) throw new Error('the node built something else than was asked');
        return { txid: `0x${'ab'.repeat(32)}`, raw: `0xraw-${tx.to}`, expiresAt: null };
      },
      broadcast: async (raw: string) => {
        sent.push(raw);
        return 'accepted';
      },
      sentReceipt: unused,
      sentReceiptOnEveryNode: unused,
      revertedOnEveryNode: unused,
      agreedReceipt: unused,
      settledNonce: unused,
    };
    const report = await transfers.step(node, { replaceAfterMs: 600_000, rebroadcastAfterMs: 60_000, batch: 10 });
    expect(report.errors).toEqual([{ kind: 'transfer', id: odd.id, message: 'the node built something else than was asked' }]);
    expect(sent).toEqual([`0xraw-${fine.to}`]);
    const rows = new Map((await sql(`select id, status, nonce::text from outgoing_transfers where id in (?)`, [[odd.id, fine.id]]) as { id: string; status: string; nonce: string | null }[]).map((r) => [r.id, r]));
    expect(rows.get(fine.id)).toMatchObject({ status: 'BROADCAST', nonce: '0' });
    expect(rows.get(odd.id)).toMatchObject({ status: 'REQUESTED', nonce: null }); // its nonce was not kept: the next one took it
  });

  it('reads a sender’s mined nonce, the head and the fees once a step, however many of its transfers it moves', async () => {
    // The earlier tests' transfers of this network out of the way: this step moves these three alone.
    await sql(`update outgoing_transfers set status = 'FAILED' where network = 'ETH_TESTNET' and status not in ('CONFIRMED', 'FAILED')`);
    const from = '0x0000000000000000000000000000000000005e4d';
    const batch = [20, 21, 22].map((m) => ({ ...transfer(m, 'ETH_TESTNET', `0x${String(m).repeat(20)}`), from }));
    await uow().run(async (tx) => {
      for (const x of batch) await tx.transfers.add(x);
    });
    const container = t.api.infra.container.createChildContainer();
    container.registerInstance(TransferOutcomes, new TransferOutcomes());
    const transfers = container.resolve(ProcessTransfers);
    const calls = { minedNonce: 0, head: 0, feeQuote: 0 };
    const signedTxids = new Map<string, string>();
    const node = {
      network: 'ETH_TESTNET',
      feeQuote: async () => (calls.feeQuote++, { maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }),
      finalizedTime: async () => null,
      head: async () => (calls.head++, { number: 50n, hash: '0x32', parentHash: '0x31' }),
      minedNonce: async (address: string) => (address === from && calls.minedNonce++, 0n),
      sign: async (tx: UnsignedTransfer) => {
        const txid = `0x${tx.to.slice(2, 4).repeat(32)}`;
        signedTxids.set(txid, tx.to);
        return { txid, raw: `0xraw-${tx.to}`, expiresAt: null };
      },
      broadcast: async () => 'accepted' as const,
      // Every one mined in block 40, agreed by every URL: the second step confirms them.
      sentReceipt: async (txid: string) => (signedTxids.has(txid) ? { txid, status: 'success' as const, block: { number: 40n, hash: '0x28', parentHash: '0x27' }, feePaid: 1n } : null),
      agreedReceipt: async (txid: string) => ({ txid, status: 'success' as const, block: { number: 40n, hash: '0x28', parentHash: '0x27' }, feePaid: 1n }),
      revertedOnEveryNode: async () => false,
    } as unknown as ChainSender;
    const opts = { replaceAfterMs: 600_000, rebroadcastAfterMs: 60_000, batch: 50, concurrency: 3 };
    expect((await transfers.step(node, opts)).signed).toBe(3);
    expect(calls).toEqual({ minedNonce: 1, head: 0, feeQuote: 1 });
    const second = await transfers.step(node, opts);
    expect(second.confirmed.map((c) => c.id).sort()).toEqual(batch.map((b) => b.id).sort());
    expect(calls).toEqual({ minedNonce: 2, head: 1, feeQuote: 1 }); // no fee read: nothing to sign
  });
});

describe('what a sender can still pay', () => {
  it('is judged by one unit of work at a time: a second waits on the sender’s row until the first has committed its transfer', async () => {
    const from = '0x00000000000000000000000000000000000a11ce';
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const first = new Promise<void>((r) => (locked = r));
    const a = uow().run(async (tx) => {
      await tx.transfers.lockOutflow('ETH_TESTNET', from);
      locked();
      await held;
      order.push('a commits');
    });
    await first;
    const b = uow().run(async (tx) => {
      await tx.transfers.lockOutflow('ETH_TESTNET', from);
      order.push('b holds the row');
    });
    // B cannot hold the row while A does; another sender's row is free meanwhile.
    await uow().run((tx) => tx.transfers.lockOutflow('ETH_TESTNET', '0x00000000000000000000000000000000000b0b00'));
    order.push('another sender');
    release();
    await Promise.all([a, b]);
    expect(order).toEqual(['another sender', 'a commits', 'b holds the row']);
    // The row it creates leaves the next nonce to the chain's count.
    expect(await uow().run((tx) => tx.transfers.takeNonce('ETH_TESTNET', from, 7n))).toBe(7n);
  });

  it('reserves the gas of a transfer not signed yet at the price given: the sender cannot commit it twice', async () => {
    const from = '0x3333333333333333333333333333333333333333';
    const topUp = requestTransfer({
      id: randomUUID(), kind: 'GAS_TOPUP', network: 'ETH_TESTNET', asset: 'ETH', from, fromPath: servicePath('ETH_TESTNET', 'gasTank'),
      to: '0x4444444444444444444444444444444444444444', amount: 5_000n, requestedAt: at(30), gasLimit: 21_000n, feeCap: null,
    });
    await uow().run((tx) => tx.transfers.add(topUp));
    // REQUESTED: no attempt, no fee cap. Without a price only its amount counts; with the step's quote, its gas too.
    expect(await uow().run((tx) => tx.transfers.committedOutflow('ETH_TESTNET', from, 'ETH'))).toBe(5_000n);
    expect(await uow().run((tx) => tx.transfers.committedOutflow('ETH_TESTNET', from, 'ETH', 3_000_000_000n))).toBe(5_000n + 21_000n * 3_000_000_000n);
    // With a fee cap, the cap is the most its gas may cost, whatever the price given.
    await sql(`update outgoing_transfers set fee_cap = 2000000000 where id = ?`, [topUp.id]);
    expect(await uow().run((tx) => tx.transfers.committedOutflow('ETH_TESTNET', from, 'ETH', 3_000_000_000n))).toBe(5_000n + 21_000n * 2_000_000_000n);
  });
});
