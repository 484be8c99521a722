// Deposits through the client SDK over real HTTP: a deposit found by the
// scanner (on a chain the test writes) is read with getDeposit, listDeposits
// and listTransactions, each response checked against the OpenAPI document;
// an unknown id is a NotFoundError.
import { beforeAll, describe, expect, it } from 'vitest';
import { ScanNetwork } from '../../src/application/deposits/scan-network.js';
import { NotFoundError, WalletClient, type WalletApiError } from '../../src/sdk/index.js';
import { failure, useTestApi } from '../support/harness.js';
import { checkedFetch } from '../support/openapi-check.js';
import { ScriptedChain } from '../support/scripted-chain.js';

const t = useTestApi({ workspace: 'sdk-deposits', env: { ETH_TESTNET_CONFIRMATIONS: '2' } });
let client: WalletClient;

beforeAll(() => {
  client = new WalletClient({ fetch: checkedFetch, baseUrl: t.api.baseUrl, keyId: t.ws.testKey.keyId, secret: t.ws.testKey.secret, retryBaseDelayMs: 20 });
});

describe('deposits through the SDK', () => {
  it('reads a credited deposit with getDeposit, listDeposits and listTransactions', async () => {
    const wallet = await client.createWallet({ chain: 'ETH', asset: 'USDT_ETH' });
    const chain = new ScriptedChain('ETH_TESTNET');
    const txid = `0x${'5'.repeat(64)}`;
    chain.mine([{ txid, logIndex: 0, asset: 'USDT_ETH', from: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', to: wallet.address, amount: 80_000_000n }]);
    chain.mine();
    const scan = t.api.infra.container.resolve(ScanNetwork);
    while ((await scan.step(chain, { owner: 'sdk', leaseSeconds: 30, batchBlocks: 10, keepBlocks: 64, startBlock: 0n })).kind !== 'idle');

    const page = await client.listDeposits({ wallet_id: wallet.id, status: 'CONFIRMED' });
    expect(page.total).toBe(1);
    const deposit = await client.getDeposit(page.data[0]!.id);
    expect(deposit).toMatchObject({ wallet_id: wallet.id, txid, amount: '80.000000', status: 'CONFIRMED', fee_record: { fee_amount: '3.000000', net_amount: '77.000000' } });
    const transactions = await client.listTransactions({ type: 'DEPOSIT', chain: 'ETH' });
    expect(transactions.data[0]).toMatchObject({ id: deposit.id, type: 'DEPOSIT', amount: '80.000000', created_at: deposit.detected_at });
    const missing = await failure<WalletApiError>(client.getDeposit('00000000-0000-4000-8000-000000000000'));
    expect(missing).toBeInstanceOf(NotFoundError);
  });
});
