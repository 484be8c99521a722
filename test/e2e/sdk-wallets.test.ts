// Issue 6's main flow through the client SDK over real HTTP.
import { mnemonicToAccount } from 'viem/accounts';
import { checkedFetch } from '../support/openapi-check.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { ConflictError, InvalidRequestError, NotFoundError, UnprocessableError, WalletClient, type WalletApiError } from '../../src/sdk/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { TEST_SEED, createWorkspace, startTestApi, testConfig } from '../support/harness.js';
import { failure as failWith } from '../support/harness.js';

let db: TestDatabase;
let api: Awaited<ReturnType<typeof startTestApi>>;
let ws: CreatedWorkspace;
let test: WalletClient;
let live: WalletClient;

const failure = (p: Promise<unknown>) => failWith<WalletApiError>(p);

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(testConfig(db.url));
  ws = await createWorkspace(api, 'sdk-wallets');
  test = new WalletClient({ fetch: checkedFetch, baseUrl: api.baseUrl, keyId: ws.testKey.keyId, secret: ws.testKey.secret, retryBaseDelayMs: 20 });
  live = new WalletClient({ fetch: checkedFetch, baseUrl: api.baseUrl, keyId: ws.liveKey.keyId, secret: ws.liveKey.secret, retryBaseDelayMs: 20 });
});

afterAll(async () => {
  await api?.close();
  await db?.drop();
});

describe('customers and wallets through the SDK', () => {
  it('creates a customer and wallets on TRON, BSC and ETH with valid addresses for their chains', async () => {
    const customer = await test.createCustomer({ external_ref: 'player-1', label: 'Player one', metadata: { level: 3 } });
    const tron = await test.createWallet({ chain: 'TRON', asset: 'USDT_TRON', customer_id: customer.id });
    const bsc = await test.createWallet({ chain: 'BSC', asset: 'USDT_BSC', customer_id: customer.id });
    const eth = await test.createWallet({ chain: 'ETH', asset: 'USDT_ETH', customer_id: customer.id, external_ref: 'deposit-7' });
    expect(tron.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(bsc.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect([tron.chain, bsc.chain, eth.chain]).toEqual(['TRON_TESTNET', 'BSC_TESTNET', 'ETH_TESTNET']);
    const [row] = await api.infra.orm.em
      .getConnection()
      .execute<{ derivation_account: number; derivation_index: number }[]>(
        'select derivation_account, derivation_index from wallets where id = ?',
        [eth.id],
      );
    expect(eth.address).toBe(mnemonicToAccount(TEST_SEED, { accountIndex: row!.derivation_account, addressIndex: row!.derivation_index }).address);
    expect((await test.getWallet(eth.id)).external_ref).toBe('deposit-7');
    const listed = await test.listWallets({ customer_id: customer.id });
    expect(listed.total).toBe(3);
  });

  it('replays a create with the same key and refuses another body under it', async () => {
    const first = await test.createWallet({ chain: 'ETH', asset: 'ETH' }, { idempotencyKey: 'sdk-wallet-1' });
    const again = await test.createWallet({ chain: 'ETH', asset: 'ETH' }, { idempotencyKey: 'sdk-wallet-1' });
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.idempotentReplay).toBe(true);
    const err = await failure(test.createWallet({ chain: 'ETH', asset: 'USDC_ETH' }, { idempotencyKey: 'sdk-wallet-1' }));
    expect(err).toBeInstanceOf(UnprocessableError);
    expect(err.code).toBe('IDEMPOTENCY_MISMATCH');
  });

  it('answers CONFLICT, VALIDATION_ERROR, CHAIN_NOT_ENABLED and NOT_FOUND as docs/api.md says', async () => {
    await test.createCustomer({ external_ref: 'twice' });
    expect(await failure(test.createCustomer({ external_ref: 'twice' }))).toBeInstanceOf(ConflictError);
    const pair = await failure(test.createWallet({ chain: 'ETH', asset: 'USDT_TRON' }));
    expect(pair).toBeInstanceOf(InvalidRequestError);
    expect(pair.code).toBe('VALIDATION_ERROR');
    const stranger = await createWorkspace(api, 'stranger');
    const theirs = await new WalletClient({ fetch: checkedFetch, baseUrl: api.baseUrl, keyId: stranger.testKey.keyId, secret: stranger.testKey.secret }).createCustomer({
      external_ref: 'theirs',
    });
    expect((await failure(test.createWallet({ chain: 'ETH', asset: 'ETH', customer_id: theirs.id }))).code).toBe('VALIDATION_ERROR');
    expect((await failure(live.createWallet({ chain: 'ETH', asset: 'ETH' }))).code).toBe('CHAIN_NOT_ENABLED');
    const mine = await test.createWallet({ chain: 'BSC', asset: 'BNB' });
    expect(await failure(live.getWallet(mine.id))).toBeInstanceOf(NotFoundError);
  });
});
