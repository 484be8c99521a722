// "Keys only where signing happens" (ADR 0026) against the real database: an
// api with no seed creates wallets on every testnet from the account xpubs a
// chain-worker records, at the addresses the seed derives; without a recorded
// xpub it answers 503 SERVICE_UNAVAILABLE and keeps nothing; the pool is
// topped up when the api finds it low, and accounts from before the pool get
// their keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalAddresses } from '../../src/application/custody/internal-addresses.js';
import { RefillAccountKeys } from '../../src/application/custody/refill-account-keys.js';
import { TOKENS } from '../../src/application/tokens.js';
import { startChainWorker } from '../../src/bootstrap/chain-worker.js';
import type { RunningWorker } from '../../src/bootstrap/worker-process.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { ACCOUNT_KEY_POOL } from '../../src/domain/custody/account-key-pool.js';
import { depositPath, servicePath } from '../../src/domain/custody/derivation.js';
import { NETWORKS, baseChainOf, type BaseChain } from '../../src/domain/money/networks.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import type { AddressDeriver } from '../../src/domain/custody/ports.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { TEST_SEED, createWorkspace, startTestApi, testConfig, uniqueCall, type TestApi } from '../support/harness.js';
import { poll } from '../support/processes.js';

let db: TestDatabase;
let api: TestApi;
let worker: RunningWorker | undefined;
const seedSigner = new LocalHdSigner(TEST_SEED);

const sql = <T extends object>(text: string, params: unknown[] = []) => api.infra.orm.em.getConnection().execute<T[]>(text, params);
const count = async (text: string, params: unknown[] = []) => Number((await sql<{ n: string }>(text, params))[0]!.n);
const refillJobs = (reason: string) =>
  count(`select count(*)::text as n from pgboss.job where name = 'custody.refill-xpubs' and data->>'reason' = ?`, [reason]);

beforeAll(async () => {
  db = await createTestDatabase();
  const config = { ...testConfig(db.url, { MASTER_SEED: '' }) };
  expect(config.masterSeed).toBeUndefined();
  api = await startTestApi(config);
}, 60_000);

afterAll(async () => {
  await worker?.close();
  await api?.close();
  await db?.drop();
});

describe('an api without a seed', () => {
  it('holds no signer and no key export: only the public derivation', () => {
    expect(api.infra.container.isRegistered(TOKENS.Signer)).toBe(false);
    expect(api.infra.container.isRegistered(TOKENS.AccountKeyExporter)).toBe(false);
    expect(api.infra.container.isRegistered(TOKENS.AddressDeriver)).toBe(true);
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After while no xpub is recorded, creates nothing, and asks the chain-worker for keys', async () => {
    const ws = await createWorkspace(api, 'early');
    const res = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'USDT_ETH' }, { 'Idempotency-Key': 'early-1' });
    expect([res.status, res.body.code, res.headers.get('retry-after')]).toEqual([503, 'SERVICE_UNAVAILABLE', '2']);
    expect(await count('select count(*)::text as n from wallets')).toBe(0);
    expect(await count('select count(*)::text as n from hd_accounts')).toBe(0);
    expect(await count('select count(*)::text as n from idempotency_keys')).toBe(0); // a 503 is not remembered: the same key may retry
    await poll(async () => ((await refillJobs('missing')) > 0 ? true : undefined), 5_000, 'a refill job');
  });

  it('creates wallets on all three testnets once a chain-worker recorded the pool, at the addresses the seed derives', async () => {
    worker = await startChainWorker(testConfig(db.url), { ports: [] });
    for (const coin of [60, 195]) {
      expect(await count('select count(*)::text as n from hd_account_keys where coin_type = ? and "change" = 0', [coin])).toBeGreaterThanOrEqual(ACCOUNT_KEY_POOL.size);
    }
    const ws = await createWorkspace(api, 'three-chains');
    const retried = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'USDT_ETH' }, { 'Idempotency-Key': 'early-1' });
    expect(retried.status).toBe(201);
    for (const [chain, asset] of [
      ['ETH', 'ETH'],
      ['BSC', 'USDT_BSC'],
      ['BSC', 'BNB'],
      ['TRON', 'USDT_TRON'],
    ] as const) {
      const res = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/wallets', { chain, asset });
      expect(res.status).toBe(201);
      expect(res.body.chain).toBe(`${chain}_TESTNET`);
    }
    const rows = await sql<{ address: string; network: string; derivation_account: number; derivation_index: number }>(
      'select address, network, derivation_account, derivation_index from wallets where workspace_id = ?',
      [ws.workspaceId],
    );
    expect(rows).toHaveLength(5);
    expect(new Set(rows.map((r) => r.network))).toEqual(new Set(['ETH_TESTNET', 'BSC_TESTNET', 'TRON_TESTNET']));
    for (const r of rows) {
      const chain = baseChainOf(r.network as (typeof NETWORKS)[number]) as BaseChain;
      expect(r.address).toBe(await seedSigner.deriveAddress(chain, depositPath(chain, r.derivation_account, r.derivation_index)));
    }
  }, 60_000);

  it("finds the service's own addresses of every network without the seed", async () => {
    const deriver = api.infra.container.resolve<AddressDeriver>(TOKENS.AddressDeriver);
    for (const network of NETWORKS) {
      for (const role of ['treasury', 'gasTank', 'faucet'] as const) {
        const chain = baseChainOf(network);
        expect(await deriver.deriveAddress(chain, servicePath(network, role))).toBe(await seedSigner.deriveAddress(chain, servicePath(network, role)));
      }
    }
  });

  it('knows every address the service derives as internal (DESTINATION_IS_INTERNAL), on every network of the same address form, without the seed', async () => {
    const internal = api.infra.container.resolve(InternalAddresses);
    const tronTreasury = await seedSigner.deriveAddress('TRON', servicePath('TRON_TESTNET', 'treasury'));
    const bscTank = await seedSigner.deriveAddress('BSC', servicePath('BSC_MAINNET', 'gasTank'));
    const [deposit] = await sql<{ address: string }>(`select address from wallets where network = 'ETH_TESTNET' limit 1`);
    const [tronDeposit] = await sql<{ address: string }>(`select address from wallets where network = 'TRON_TESTNET' limit 1`);
    const uow = api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const check = (network: (typeof NETWORKS)[number], address: string) => uow.run((tx) => internal.isInternal(tx, network, address));
    expect(await check('TRON_MAINNET', tronTreasury)).toBe(true); // another network's service address
    expect(await check('ETH_MAINNET', bscTank)).toBe(true); // the same key on an EVM chain of the other kind
    expect(await check('BSC_MAINNET', deposit!.address)).toBe(true); // a deposit address of a testnet wallet
    expect(await check('TRON_MAINNET', tronDeposit!.address)).toBe(true);
    expect(await check('ETH_MAINNET', '0x700b6A60ce7EaaEA56F065753d8dcB9653dbAD35')).toBe(false);
    expect(await check('TRON_MAINNET', 'TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV')).toBe(false);
    expect((await internal.serviceAddresses('ETH_TESTNET')).map((a) => a.role)).toEqual(['treasury', 'gasTank', 'faucet']);
  });

  it('tops the pool up when an account it opens leaves it low: the api enqueues the refill, the chain-worker records it', async () => {
    const before = await refillJobs('pool-low');
    const last = await count('select last_value::text as n from hd_accounts_account_seq');
    // Accounts handed out elsewhere: only a few recorded keys are left ahead of the sequence.
    await sql(`select setval('hd_accounts_account_seq', ?)`, [last + ACCOUNT_KEY_POOL.size - 10]);
    const ws = await createWorkspace(api, 'low-pool');
    const res = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/wallets', { chain: 'TRON', asset: 'USDT_TRON' });
    expect(res.status).toBe(201);
    expect(await refillJobs('pool-low')).toBe(before + 1);
    const top = await count('select last_value::text as n from hd_accounts_account_seq');
    for (const coin of [60, 195]) {
      await poll(
        async () => ((await count('select count(*)::text as n from hd_account_keys where coin_type = ? and "change" = 0 and account > ?', [coin, top])) >= ACCOUNT_KEY_POOL.size ? true : undefined),
        20_000,
        `the pool of coin ${coin} to be topped up`,
      );
    }
  }, 40_000);

  it('records the keys of accounts allocated before the pool existed (the backfill), equal to what the seed exports', async () => {
    const ws = await createWorkspace(api, 'before-the-pool');
    const [{ account }] = await sql<{ account: number }>(
      `insert into hd_accounts (workspace_id, network, next_index) values (?, 'TRON_TESTNET', 0) returning account`,
      [ws.workspaceId],
    ) as [{ account: number }];
    await sql('delete from hd_account_keys where account = ?', [account]);
    const { added } = await worker!.infra.container.resolve(RefillAccountKeys).execute();
    expect(added).toBeGreaterThanOrEqual(1);
    const [row] = await sql<{ xpub: string }>('select xpub from hd_account_keys where coin_type = 195 and account = ? and "change" = 0', [account]);
    expect(row?.xpub).toBe(await seedSigner.accountXpub(195, account, 0));
  });
});
