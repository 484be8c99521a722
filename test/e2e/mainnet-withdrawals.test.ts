// The owner's mainnet rules end to end (issue 16): the api and the
// chain-worker run as OS processes in production mode against local nodes
// configured as the mainnets (anvil with chain ids 1 and 56), and a live key
// withdraws over HTTP. Above the approval threshold a withdrawal waits for
// the owner's approval; the per-transaction and rolling 24-hour limits, the
// allowlist of beneficiaries and their cooling-off refuse with
// WITHDRAWAL_POLICY_VIOLATION and their reasons; of two parallel requests at
// the daily limit, one passes; an approved ETH withdrawal is then sent on the
// chain-id-1 node and CONFIRMED, the destination receiving exactly the net.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { AddBeneficiary } from '../../src/application/security/manage-beneficiaries.js';
import { SetWithdrawalPolicy } from '../../src/application/security/set-withdrawal-policy.js';
import { TOKENS } from '../../src/application/tokens.js';
import { OperateWithdrawals } from '../../src/application/withdrawals/operate-withdrawals.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { creditDeposit } from '../../src/domain/ledger/entries.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { Asset, Network } from '../../src/domain/money/networks.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { freePort } from '../support/free-port.js';
import { TEST_ENCRYPTION_KEY, TEST_SEED, createWorkspace, startTestApi, testConfig, uniqueCall, type TestApi } from '../support/harness.js';
import { startTestChain, type TestChain } from '../support/anvil-chain.js';
import { poll, spawnEntry, type Spawned } from '../support/processes.js';

const ALLOWED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const OTHER = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
let db: TestDatabase;
let setup: TestApi;
let ws: CreatedWorkspace;
let eth: TestChain;
let bsc: TestChain;
let api: Spawned | undefined;
let worker: Spawned | undefined;
let base = '';
let mining: NodeJS.Timeout | undefined;

/** What the production processes share: the database, the key that encrypts the API keys' secrets, the mainnet nodes. */
const production = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
  ...process.env,
  NODE_ENV: 'production',
  DATABASE_URL: db.url,
  SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  ETH_MAINNET_RPC_URL: eth.anvil.rpcUrl,
  BSC_MAINNET_RPC_URL: bsc.anvil.rpcUrl,
  ETH_MAINNET_START_BLOCK: '0',
  BSC_MAINNET_START_BLOCK: '0',
  ...extra,
});

const fund = (network: Network, asset: Asset, gross: string) =>
  setup.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork).run((tx) =>
    tx.ledger.post(creditDeposit({ id: randomUUID(), network, at: new Date(), depositId: randomUUID(), workspaceId: ws.workspaceId, gross: Amount.parse(gross, asset), fee: Amount.zero(asset) })),
  );
const withdraw = (chain: string, asset: string, amount: string, destination: string) =>
  uniqueCall(base, ws.liveKey, 'POST', '/v2/withdrawals', { chain, asset, amount, destination_address: destination });
const outcome = (res: { status: number; body: Record<string, unknown> }) =>
  res.status === 201 ? (res.body.status as string) : `${res.status} ${res.body.code as string}:${((res.body.details as { reason?: string } | undefined)?.reason ?? '')}`;

beforeAll(async () => {
  [eth, bsc] = await Promise.all([startTestChain({ chainId: 1, decimals: [6] }), startTestChain({ chainId: 56, decimals: [18] })]);
  db = await createTestDatabase();
  setup = await startTestApi(testConfig(db.url)); // the workspace, its balances and its owner's settings
  ws = await createWorkspace(setup, 'mainnet-owner');
  await fund('BSC_MAINNET', 'USDT_BSC', '1000');
  await fund('ETH_MAINNET', 'ETH', '2');
  // As deployed: the chain-worker, which holds the seed, records the service addresses' keys the api derives from.
  mining = setInterval(() => void Promise.all([eth.mine(), bsc.mine()]).catch(() => undefined), 250);
  worker = spawnEntry(
    'src/bootstrap/chain-worker.ts',
    production({ MASTER_SEED: TEST_SEED, CHAIN_WORKER_PORT: String(await freePort()), ETH_MAINNET_CONFIRMATIONS: '2', BSC_MAINNET_CONFIRMATIONS: '2', SEND_INTERVAL_MS: '200', SCAN_POLL_MS: '200' }),
  );
  await worker.waitFor(/chain-worker listening/, 30_000);
  const port = await freePort();
  api = spawnEntry('src/bootstrap/api.ts', production({ PORT: String(port), ADMIN_PORT: String(await freePort()) }));
  await api.waitFor(/api listening/, 30_000);
  base = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  if (mining) clearInterval(mining);
  for (const p of [api, worker]) if (p?.child.exitCode === null) p.child.kill('SIGKILL');
  await setup?.close();
  await db?.drop();
  await eth?.stop();
  await bsc?.stop();
});

describe('withdrawals on mainnets (production processes, local nodes with chain ids 1 and 56)', () => {
  it('has no faucet in production: a test key gets 403 FAUCET_NOT_SANDBOX, a live key FAUCET_ONLY_SANDBOX', async () => {
    const wallet = await uniqueCall(base, ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'USDT_ETH' });
    const ask = { chain: 'ETH', address: wallet.body.address, assets: [{ symbol: 'USDT_ETH' }] };
    const test = await uniqueCall(base, ws.testKey, 'POST', '/v2/sandbox/faucet', ask);
    expect([test.status, test.body.code]).toEqual([403, 'FAUCET_NOT_SANDBOX']);
    const live = await uniqueCall(base, ws.liveKey, 'POST', '/v2/sandbox/faucet', ask);
    expect([live.status, live.body.code]).toEqual([403, 'FAUCET_ONLY_SANDBOX']);
  });

  it('applies the owner’s limits: approval above the threshold, the per-transaction limit, and the daily limit to exactly one of two parallel requests', async () => {
    await setup.infra.container.resolve(SetWithdrawalPolicy).execute({ workspaceId: ws.workspaceId, approvalAbove: '100', perTxLimit: '300', dailyLimit: '500' });
    const chains = (await uniqueCall(base, ws.liveKey, 'GET', '/v2/chains')).body.data as { chain: string; enabled: boolean }[];
    expect(chains.filter((c) => c.enabled).map((c) => c.chain).sort()).toEqual(['BSC_MAINNET', 'ETH_MAINNET']);
    const big = await withdraw('BSC', 'USDT_BSC', '150', OTHER);
    expect(outcome(big)).toBe('PENDING_APPROVAL');
    expect(outcome(await withdraw('BSC', 'USDT_BSC', '300.000001', OTHER))).toBe('422 WITHDRAWAL_POLICY_VIOLATION:PER_TRANSACTION_LIMIT');
    // 150 waiting for approval counts: of two parallel 200s, only one fits under 500.
    const pair = await Promise.all([withdraw('BSC', 'USDT_BSC', '200', OTHER), withdraw('BSC', 'USDT_BSC', '200', OTHER)]);
    expect(pair.map(outcome).sort()).toEqual(['422 WITHDRAWAL_POLICY_VIOLATION:DAILY_LIMIT', 'PENDING_APPROVAL']);
    const balance = (await uniqueCall(base, ws.liveKey, 'GET', '/v2/balances?asset=USDT_BSC')).body.data[0];
    expect(balance).toMatchObject({ chain: 'BSC_MAINNET', available: '650.000000', locked: '350.000000' });
  }, 60_000);

  it('restricts destinations to beneficiaries once there are any, each usable after its cooling-off', async () => {
    await setup.infra.container.resolve(SetWithdrawalPolicy).execute({ workspaceId: ws.workspaceId, coolingOffHours: 24 });
    await setup.infra.container.resolve(AddBeneficiary).execute({ workspaceId: ws.workspaceId, chain: 'ETH_MAINNET', address: ALLOWED });
    expect(outcome(await withdraw('ETH', 'ETH', '0.5', OTHER))).toBe('422 WITHDRAWAL_POLICY_VIOLATION:DESTINATION_NOT_ALLOWLISTED');
    expect(outcome(await withdraw('ETH', 'ETH', '0.5', ALLOWED))).toBe('422 WITHDRAWAL_POLICY_VIOLATION:DESTINATION_COOLING_OFF');
    await setup.infra.container.resolve(SetWithdrawalPolicy).execute({ workspaceId: ws.workspaceId, coolingOffHours: 0 });
    expect(outcome(await withdraw('ETH', 'ETH', '0.5', ALLOWED))).toBe('PENDING');
  }, 60_000);

  it('sends an approved withdrawal on the chain-id-1 node: CONFIRMED, the destination receives exactly the net', async () => {
    await setup.infra.container.resolve(SetWithdrawalPolicy).execute({ workspaceId: ws.workspaceId, approvalAbove: '0.8' }); // ETH in its own units
    const approved = await withdraw('ETH', 'ETH', '1', ALLOWED);
    expect(outcome(approved)).toBe('PENDING_APPROVAL');
    expect((await setup.infra.container.resolve(OperateWithdrawals).execute('approve', approved.body.id as string)).status).toBe('PENDING');
    const before = BigInt(await rpc<string>(eth.anvil.rpcUrl, 'eth_getBalance', [ALLOWED, 'latest']));
    // Until now the treasury had nothing: both ETH withdrawals waited for it.
    const sent = (await uniqueCall(base, ws.liveKey, 'GET', '/v2/withdrawals?chain=ETH&status=PENDING')).body.data as { id: string; amount: string }[];
    expect(sent.map((w) => w.amount).sort()).toEqual(['0.500000000000000000', '1.000000000000000000']);
    const treasury = await new LocalHdSigner(TEST_SEED).deriveAddress('ETH', servicePath('ETH_MAINNET', 'treasury'));
    await rpc(eth.anvil.rpcUrl, 'anvil_setBalance', [treasury, `0x${(10n ** 19n).toString(16)}`]);
    for (const w of sent) {
      const done = await poll(async () => {
        const got = (await uniqueCall(base, ws.liveKey, 'GET', `/v2/withdrawals/${w.id}`)).body as { status: string };
        return got.status === 'CONFIRMED' ? got : undefined;
      }, 60_000, `withdrawal ${w.id} confirmed on chain id 1`);
      expect(done).toMatchObject({ chain: 'ETH_MAINNET', txid: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    }
    const fee = 10n ** 15n; // ETH's flat withdrawal fee, 0.001
    expect(BigInt(await rpc<string>(eth.anvil.rpcUrl, 'eth_getBalance', [ALLOWED, 'latest'])) - before).toBe(15n * 10n ** 17n - 2n * fee);
    expect(BigInt(await rpc<string>(eth.anvil.rpcUrl, 'eth_chainId'))).toBe(1n);
  }, 120_000);
});
