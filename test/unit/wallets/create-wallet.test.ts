import { describe, expect, it } from 'vitest';
import { CreateCustomer } from '../../../src/application/customers/create-customer.js';
import { UpdateCustomer } from '../../../src/application/customers/update-customer.js';
import { CreateWallet, POOL_TARGET } from '../../../src/application/wallets/create-wallet.js';
import { ReadWallets } from '../../../src/application/wallets/read-wallets.js';
import type { Principal } from '../../../src/domain/auth/principal.js';
import { SCOPES } from '../../../src/domain/auth/scopes.js';
import { ConfiguredNetworkRegistry } from '../../../src/adapters/chains/network-settings.js';
import { FakeAddressDeriver, InMemoryNetworkSwitches, fakeWorld } from '../../support/fakes.js';

function setup() {
  const w = fakeWorld();
  const switches = new InMemoryNetworkSwitches();
  const networks = new ConfiguredNetworkRegistry([], true, switches);
  const principal: Principal = {
    workspaceId: '00000000-0000-4000-8000-00000000aaaa',
    apiKeyId: 'k',
    keyId: 'sk_test_x',
    side: 'test',
    scopes: new Set(SCOPES),
    restrictions: { allowedIps: [], expiresAt: null },
  };
  const addresses = new FakeAddressDeriver();
  const createWallet = new CreateWallet(w.uow, networks, addresses, w.cipher, w.random, w.clock);
  const createCustomer = new CreateCustomer(w.uow, w.random, w.clock);
  return { w, switches, principal, createWallet, createCustomer, addresses };
}

describe('CreateWallet', () => {
  it('derives consecutive indexes of the workspace account on the key network, per network', async () => {
    const { createWallet, principal } = setup();
    const a = await createWallet.execute(principal, { chain: 'ETH', asset: 'USDT_ETH', externalRef: null, customerId: null });
    const b = await createWallet.execute(principal, { chain: 'ETH', asset: 'ETH', externalRef: null, customerId: null });
    const t = await createWallet.execute(principal, { chain: 'TRON', asset: 'USDT_TRON', externalRef: null, customerId: null });
    expect([a.network, a.derivationIndex, b.derivationIndex]).toEqual(['ETH_TESTNET', 0, 1]);
    expect(a.address).toBe(`ETH:m/44'/60'/${a.derivationAccount}'/0/0`);
    expect(t.address).toBe(`TRON:m/44'/195'/${t.derivationAccount}'/0/0`);
    expect(t.derivationAccount).not.toBe(a.derivationAccount);
    expect(a.status).toBe('ACTIVE');
  });

  it('refuses an asset of another chain, a disabled network and an archived or unknown customer, and allocates nothing', async () => {
    const { createWallet, createCustomer, principal, switches, w } = setup();
    await expect(
      createWallet.execute(principal, { chain: 'ETH', asset: 'USDT_TRON', externalRef: null, customerId: null }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await switches.set('BSC_TESTNET', false);
    await expect(
      createWallet.execute(principal, { chain: 'BSC', asset: 'BNB', externalRef: null, customerId: null }),
    ).rejects.toMatchObject({ code: 'CHAIN_NOT_ENABLED' });
    const c = await createCustomer.execute(principal, { externalRef: 'u1', label: null, metadata: null });
    await new UpdateCustomer(w.uow, w.clock).execute(principal, c.id, { status: 'ARCHIVED' });
    await expect(
      createWallet.execute(principal, { chain: 'ETH', asset: 'ETH', externalRef: null, customerId: c.id }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(
      createWallet.execute(principal, { chain: 'ETH', asset: 'ETH', externalRef: null, customerId: '00000000-0000-4000-8000-0000000000ff' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(w.store.wallets.size).toBe(0);
    expect([...w.store.nextIndexes.values()].every((n) => n === 0)).toBe(true);
  });

  it('answers SERVICE_UNAVAILABLE (retry in 2 s) and keeps nothing when the account xpub is not recorded and its pool is empty; a refill was asked for', async () => {
    const { createWallet, principal, addresses, w } = setup();
    const first = await createWallet.execute(principal, { chain: 'ETH', asset: 'ETH', externalRef: null, customerId: null });
    const account = first.derivationAccount;
    // The first create topped the pool up: indexes 1..POOL_TARGET, taken ahead with their addresses.
    expect(w.store.addressPool.get(account)!.map((p) => p.index)).toEqual(Array.from({ length: POOL_TARGET }, (_, i) => i + 1));
    expect(w.store.nextIndexes.get(account)).toBe(POOL_TARGET + 1);
    addresses.missing.add(account);
    // Without the xpub, the pooled addresses still serve, lowest first; the refills they ask for take nothing.
    for (let i = 1; i <= POOL_TARGET; i++) {
      const pooled = await createWallet.execute(principal, { chain: 'ETH', asset: 'USDT_ETH', externalRef: null, customerId: null });
      expect([pooled.derivationIndex, pooled.address]).toEqual([i, `ETH:m/44'/60'/${account}'/0/${i}`]);
    }
    expect(w.store.nextIndexes.get(account)).toBe(POOL_TARGET + 1);
    const asked = addresses.refillRequests;
    expect(asked).toBeGreaterThan(0);
    const err = await createWallet.execute(principal, { chain: 'ETH', asset: 'USDT_ETH', externalRef: null, customerId: null }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { retry_after_seconds: 2 } });
    expect(addresses.refillRequests).toBe(asked + 1);
    expect(w.store.wallets.size).toBe(POOL_TARGET + 1);
    expect(w.store.nextIndexes.get(account)).toBe(POOL_TARGET + 1); // the index given back
    addresses.missing.clear();
    const next = await createWallet.execute(principal, { chain: 'ETH', asset: 'USDT_ETH', externalRef: null, customerId: null });
    expect(next.derivationIndex).toBe(POOL_TARGET + 1);
  });

  it('puts a claimed index back in the pool when the create fails after claiming it', async () => {
    const { createWallet, principal, w } = setup();
    const first = await createWallet.execute(principal, { chain: 'ETH', asset: 'ETH', externalRef: null, customerId: null });
    // The failed run's snapshot is restored with fresh maps, so this one-off failure goes with it.
    w.store.wallets.set = () => {
      throw new Error('the insert failed');
    };
    await expect(createWallet.execute(principal, { chain: 'ETH', asset: 'ETH', externalRef: null, customerId: null })).rejects.toThrow('the insert failed');
    expect(w.store.addressPool.get(first.derivationAccount)![0]!.index).toBe(1);
    const next = await createWallet.execute(principal, { chain: 'ETH', asset: 'ETH', externalRef: null, customerId: null });
    expect(next.derivationIndex).toBe(1);
  });

  it('asks for a refill in the same transaction when a new account leaves the pool low, and only then', async () => {
    const { createWallet, principal, addresses, w } = setup();
    await createWallet.execute(principal, { chain: 'ETH', asset: 'ETH', externalRef: null, customerId: null });
    expect(w.store.jobs.filter((j) => j.name === 'custody.refill-xpubs')).toEqual([]);
    addresses.low = true;
    await createWallet.execute(principal, { chain: 'ETH', asset: 'ETH', externalRef: null, customerId: null }); // same account, index 1
    expect(w.store.jobs.filter((j) => j.name === 'custody.refill-xpubs')).toEqual([]);
    await createWallet.execute(principal, { chain: 'TRON', asset: 'USDT_TRON', externalRef: null, customerId: null }); // a new account
    expect(w.store.jobs.filter((j) => j.name === 'custody.refill-xpubs')).toEqual([{ name: 'custody.refill-xpubs', payload: { reason: 'pool-low' } }]);
  });

  it('stores the external_ref only encrypted and opens it in the detail view', async () => {
    const { createWallet, principal, w } = setup();
    const wallet = await createWallet.execute(principal, { chain: 'ETH', asset: 'ETH', externalRef: 'order-42', customerId: null });
    expect(w.store.wallets.get(wallet.id)!.externalRefCiphertext).not.toContain('order-42');
    const read = await new ReadWallets(w.uow, w.cipher).get(principal, wallet.id);
    expect(read.externalRef).toBe('order-42');
  });

  it('answers NOT_FOUND for a wallet of the other network side', async () => {
    const { createWallet, principal, w } = setup();
    const wallet = await createWallet.execute(principal, { chain: 'ETH', asset: 'ETH', externalRef: null, customerId: null });
    await expect(new ReadWallets(w.uow, w.cipher).get({ ...principal, side: 'live' }, wallet.id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('CreateCustomer', () => {
  it('refuses a second customer with the same external_ref on the same side, allows it on the other side', async () => {
    const { createCustomer, principal } = setup();
    await createCustomer.execute(principal, { externalRef: 'dup', label: null, metadata: null });
    await expect(createCustomer.execute(principal, { externalRef: 'dup', label: null, metadata: null })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    const live = await createCustomer.execute({ ...principal, side: 'live' }, { externalRef: 'dup', label: null, metadata: null });
    expect(live.side).toBe('live');
  });
});
