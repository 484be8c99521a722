// Withdrawals end to end on a real anvil with the chain-worker as an OS
// process (issue 16): a withdrawal is picked up, sent from the treasury
// through the outgoing-transfer pipeline and confirmed; the destination
// receives exactly the net, read from the node; the lock is consumed at
// broadcast (fee to revenue) with WITHDRAWAL_PROCESSING, and
// WITHDRAWAL_CONFIRMED carries the fee object; a treasury without the funds
// leaves a withdrawal waiting (treasury_short, never FAILED) until it is
// funded; a SIGKILL of the chain-worker between signing and broadcasting
// leaves one transaction on chain and one withdrawal CONFIRMED; a token that
// refuses the transfer (a blocked destination) fails the withdrawal with the
// whole amount back in available, whether the node's dry run already says so
// (nothing is sent) or the transaction reverts on chain; the ledger check
// reports zero differences.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { TOKENS } from '../../src/application/tokens.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { creditDeposit } from '../../src/domain/ledger/entries.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { freePort } from '../support/free-port.js';
import { createWorkspace, startTestApi, testConfig, uniqueCall, TEST_SEED, type TestApi } from '../support/harness.js';
import { startTestChain, type TestChain } from '../support/anvil-chain.js';
import { opsEnv, poll, runEntry, spawnEntry, type Spawned } from '../support/processes.js';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.js';

const DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
/** Blocked by the token before its withdrawal is picked up, and after it is broadcast. */
const REFUSED_EARLY = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const REFUSED_ON_CHAIN = '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB';
let db: TestDatabase;
let api: TestApi;
let ws: CreatedWorkspace;
let chain: TestChain;
let proxy: RpcProxy;
let worker: Spawned | undefined;
let workerPort = 0;
let treasury: string;
let mining: NodeJS.Timeout | undefined;

const sql = <T extends object>(text: string, params: unknown[] = []) => api.infra.orm.em.getConnection().execute<T[]>(text, params);
const tokenBalance = async (token: string, address: string): Promise<bigint> =>
  BigInt(
    await rpc<string>(chain.anvil.rpcUrl, 'eth_call', [{ to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [address as Hex] }) }, 'latest']),
  );
const available = async () => ((await uniqueCall(api.baseUrl, ws.testKey, 'GET', '/v2/balances?asset=USDT_ETH')).body.data[0] as { available: string; locked: string });
const startMining = () => {
  mining = setInterval(() => void chain.mine().catch(() => undefined), 250);
};
const status = async (id: string) => (await uniqueCall(api.baseUrl, ws.testKey, 'GET', `/v2/withdrawals/${id}`)).body as Record<string, unknown>;
const eventsOf = async (id: string) =>
  (await sql<{ event: string; payload: string }>(`select event, payload from webhook_events where payload::jsonb -> 'data' ->> 'withdrawal_id' = ? order by created_at`, [id])).map(
    (e) => ({ event: e.event, data: (JSON.parse(e.payload) as { data: Record<string, unknown> }).data }),
  );

async function startWorker(): Promise<void> {
  workerPort = await freePort();
  worker = spawnEntry(
    'src/bootstrap/chain-worker.ts',
    opsEnv(db.url, {
      LOG_LEVEL: 'info',
      MASTER_SEED: TEST_SEED,
      CHAIN_WORKER_PORT: String(workerPort),
      ETH_TESTNET_RPC_URL: proxy.url,
      ETH_TESTNET_CONFIRMATIONS: '2',
      ETH_TESTNET_START_BLOCK: '0',
      SCAN_POLL_MS: '100',
      SEND_INTERVAL_MS: '200',
    }),
  );
  await worker.waitFor(/chain-worker listening/, 30_000);
}

beforeAll(async () => {
  chain = await startTestChain({ chainId: 11155111, decimals: [6, 6, 6] });
  db = await createTestDatabase();
  api = await startTestApi(testConfig(db.url, { ETH_TESTNET_CONFIRMATIONS: '2' }));
  ws = await createWorkspace(api, 'withdrawals-e2e');
  treasury = await new LocalHdSigner(TEST_SEED).deriveAddress('ETH', servicePath('ETH_TESTNET', 'treasury'));
  await chain.sendNative(treasury, 10n ** 18n);
  await chain.mine();
  // The workspace's balance: 500 USDT_ETH credited (as a confirmed deposit would).
  await api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork).run((tx) =>
    tx.ledger.post(
      creditDeposit({
        id: randomUUID(),
        network: 'ETH_TESTNET',
        at: new Date(),
        depositId: randomUUID(),
        workspaceId: ws.workspaceId,
        gross: Amount.parse('500', 'USDT_ETH'),
        fee: Amount.zero('USDT_ETH'),
      }),
    ),
  );
  startMining();
  proxy = await startRpcProxy(chain.anvil.rpcUrl);
  await startWorker();
}, 120_000);

afterAll(async () => {
  if (mining) clearInterval(mining);
  if (worker?.child.exitCode === null) worker.child.kill('SIGKILL');
  await api?.close();
  await db?.drop();
  await proxy?.close();
  await chain?.stop();
});

describe('withdrawals on a real anvil', () => {
  it('waits while the treasury lacks the asset, then sends the net once it is funded: PROCESSING, CONFIRMING, CONFIRMED', async () => {
    const usdt = chain.tokens[0]!;
    const created = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/withdrawals', { chain: 'ETH', asset: 'USDT_ETH', amount: '120', destination_address: DESTINATION });
    expect([created.status, created.body.net_amount]).toEqual([201, '115.000000']);
    const id = created.body.id as string;
    // The treasury holds no USDT yet: the withdrawal waits, and says so.
    await poll(async () => (/treasury_short\{network="ETH_TESTNET"[^}]*\} 1/.test(await (await fetch(`http://127.0.0.1:${workerPort}/metrics`)).text()) ? true : undefined), 20_000, 'treasury_short');
    expect((await status(id)).status).toBe('PENDING');
    expect(worker!.output().match(/treasury too low for the next withdrawal/g)).toHaveLength(1);
    await chain.sendToken(usdt, treasury, 1_000_000_000n);
    const done = await poll(async () => {
      const s = await status(id);
      return s.status === 'CONFIRMED' ? s : undefined;
    }, 60_000, 'the withdrawal confirmed');
    expect(await tokenBalance(usdt, DESTINATION)).toBe(115_000_000n);
    expect(done).toMatchObject({ txid: expect.stringMatching(/^0x[0-9a-f]{64}$/), fee_record: { fee_amount: '5.000000', net_amount: '115.000000' }, confirmed_at: expect.any(String) });
    const events = await eventsOf(id);
    expect(events.map((e) => e.event)).toEqual(['WITHDRAWAL_PROCESSING', 'WITHDRAWAL_CONFIRMED']);
    expect(events[1]!.data).toMatchObject({
      withdrawal_id: id,
      status: 'CONFIRMED',
      fee: { gross_amount: '120.000000', fee_amount: '5.000000', net_amount: '115.000000', applied_rate: '0.000000' },
    });
    const balance = (await uniqueCall(api.baseUrl, ws.testKey, 'GET', '/v2/balances?asset=USDT_ETH')).body.data[0];
    expect(balance).toMatchObject({ available: '380.000000', locked: '0.000000' });
    expect(await (await fetch(`http://127.0.0.1:${workerPort}/metrics`)).text()).toMatch(/treasury_short\{network="ETH_TESTNET"[^}]*\} 0/);
  }, 120_000);

  it('after a SIGKILL between signing and broadcasting, sends one transaction and confirms the withdrawal once', async () => {
    const usdt = chain.tokens[0]!;
    const nonce = async () => BigInt(await rpc<string>(chain.anvil.rpcUrl, 'eth_getTransactionCount', [treasury, 'latest']));
    const before = await tokenBalance(usdt, DESTINATION);
    const treasuryNonce = await nonce();
    proxy.failMethods.add('eth_sendRawTransaction'); // signed and recorded, never reaching the node
    const created = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/withdrawals', { chain: 'ETH', asset: 'USDT_ETH', amount: '30', destination_address: DESTINATION });
    const id = created.body.id as string;
    const [signed] = await poll(async () => {
      const rows = await sql<{ id: string; status: string }>(`select id, status from outgoing_transfers where owner_id = ?`, [id]);
      return rows[0]?.status === 'SIGNED' ? rows : undefined;
    }, 30_000, 'the payout signed');
    const [attempt] = await sql<{ txid: string }>(`select txid from transfer_attempts where transfer_id = ?`, [signed!.id]);
    worker!.child.kill('SIGKILL');
    await worker!.exit();
    proxy.failMethods.clear();
    expect((await status(id)).status).toBe('PENDING'); // nothing reached the chain: the lock is not consumed yet
    await startWorker();
    await poll(async () => ((await status(id)).status === 'CONFIRMED' ? true : undefined), 60_000, 'confirmed after the restart');
    expect(await tokenBalance(usdt, DESTINATION)).toBe(before + 25_000_000n);
    expect(await nonce()).toBe(treasuryNonce + 1n); // one transaction from the treasury
    expect(await sql(`select txid from transfer_attempts where transfer_id = ?`, [signed!.id])).toEqual([{ txid: attempt!.txid }]);
    expect((await status(id)).txid).toBe(attempt!.txid);
  }, 120_000);

  it('sends a native ETH withdrawal, and books its gas to the service; the ledger check is at zero', async () => {
    await api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork).run((tx) =>
      tx.ledger.post(
        creditDeposit({ id: randomUUID(), network: 'ETH_TESTNET', at: new Date(), depositId: randomUUID(), workspaceId: ws.workspaceId, gross: Amount.parse('0.5', 'ETH'), fee: Amount.zero('ETH') }),
      ),
    );
    const before = BigInt(await rpc<string>(chain.anvil.rpcUrl, 'eth_getBalance', [DESTINATION, 'latest']));
    const created = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/withdrawals', { chain: 'ETH', asset: 'ETH', amount: '0.2', destination_address: DESTINATION });
    const id = created.body.id as string;
    await poll(async () => ((await status(id)).status === 'CONFIRMED' ? true : undefined), 60_000, 'the ETH withdrawal confirmed');
    expect(BigInt(await rpc<string>(chain.anvil.rpcUrl, 'eth_getBalance', [DESTINATION, 'latest'])) - before).toBe(199_000_000_000_000_000n); // 0.2 − 0.001
    const [transfer] = await sql<{ id: string; fee_paid: string }>(`select id, fee_paid::text from outgoing_transfers where owner_id = ?`, [id]);
    const gas = await sql<{ n: string }>(`select count(*)::text as n from journal_entries where reference = ? and workspace_id is null`, [`gas:transfer:${transfer!.id}`]);
    expect(gas[0]!.n).toBe('1');
    const check = await runEntry('src/bootstrap/ops.ts', opsEnv(db.url), ['ledger', 'check', '--json']);
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true });
  }, 120_000);

  it('fails a withdrawal whose token refuses the transfer in the node’s dry run: nothing is sent, the whole amount is available again', async () => {
    const usdt = chain.tokens[0]!;
    const blocking = await chain.setBlocked(usdt, REFUSED_EARLY, true);
    await poll(async () => ((await rpc(chain.anvil.rpcUrl, 'eth_getTransactionReceipt', [blocking])) ? true : undefined), 10_000, 'the block in a block');
    const before = await available();
    const created = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/withdrawals', { chain: 'ETH', asset: 'USDT_ETH', amount: '40', destination_address: REFUSED_EARLY });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const failed = await poll(async () => {
      const s = await status(id);
      return s.status === 'FAILED' ? s : undefined;
    }, 30_000, 'the refused withdrawal failed');
    expect(failed).toMatchObject({ txid: null, amount: '40.000000' });
    expect(await sql(`select id from outgoing_transfers where owner_id = ?`, [id])).toEqual([]);
    expect(await available()).toEqual(before);
    expect((await eventsOf(id)).map((e) => e.event)).toEqual(['WITHDRAWAL_FAILED']);
    expect(worker!.output()).toMatch(/the token contract refuses their transfer/);
  }, 60_000);

  it('fails a withdrawal whose transaction reverts on chain, with the whole amount (fee included) back in available; the gas is the service’s', async () => {
    const usdt = chain.tokens[0]!;
    const before = await available();
    clearInterval(mining);
    let id: string;
    let txid: string;
    try {
      // No blocks: the payout is estimated, signed and broadcast while the destination is still allowed...
      const created = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/withdrawals', { chain: 'ETH', asset: 'USDT_ETH', amount: '50', destination_address: REFUSED_ON_CHAIN });
      id = created.body.id as string;
      txid = await poll(async () => {
        const s = await status(id);
        return s.status === 'PROCESSING' ? (s.txid as string) : undefined;
      }, 30_000, 'the payout broadcast');
      // ...then the token blocks it, ahead of the payout in the same block.
      await chain.setBlocked(usdt, REFUSED_ON_CHAIN, true);
      await chain.mine();
    } finally {
      startMining();
    }
    const receipt = await rpc<{ status: string } | null>(chain.anvil.rpcUrl, 'eth_getTransactionReceipt', [txid]);
    expect(receipt?.status).toBe('0x0');
    await poll(async () => ((await status(id)).status === 'FAILED' ? true : undefined), 60_000, 'the reverted withdrawal failed');
    expect(await tokenBalance(usdt, REFUSED_ON_CHAIN)).toBe(0n);
    expect(await available()).toEqual(before);
    expect((await eventsOf(id)).map((e) => e.event)).toEqual(['WITHDRAWAL_PROCESSING', 'WITHDRAWAL_FAILED']);
    const [transfer] = await sql<{ id: string; status: string }>(`select id, status from outgoing_transfers where owner_id = ?`, [id]);
    expect(transfer!.status).toBe('FAILED');
    const gas = await sql<{ n: string }>(`select count(*)::text as n from journal_entries where reference = ? and workspace_id is null`, [`gas:transfer:${transfer!.id}`]);
    expect(gas[0]!.n).toBe('1');
    const check = await runEntry('src/bootstrap/ops.ts', opsEnv(db.url), ['ledger', 'check', '--json']);
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true });
  }, 120_000);
});
