// Faucet requests (RequestDrip) on the real database: who may ask, for which
// wallet, and each limit with its own code, checked atomically: two parallel
// drips at a native budget's edge, exactly one passes. The node is a stub
// balance reader for the dispenser (application test); sending is the
// chain-worker's and is tested with it.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RequestDrip } from '../../src/application/faucet/request-drip.js';
import { TOKENS } from '../../src/application/tokens.js';
import type { Principal } from '../../src/domain/auth/principal.js';
import { SCOPES } from '../../src/domain/auth/scopes.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import type { BalanceReader } from '../../src/domain/transfers/ports.js';
import { insertConfirmedUsdtDeposit } from '../support/deposit-rows.js';
import { createWorkspace, uniqueCall, useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'faucet-requests' });
const sql = (text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute(text, params);

let dispenserWei = 10n ** 21n;
const reader: BalanceReader = {
  network: 'ETH_TESTNET',
  nativeBalance: async () => dispenserWei,
  tokenBalance: async () => 0n,
} as BalanceReader;

function requests(available = true) {
  const container = t.api.infra.container.createChildContainer();
  container.register(TOKENS.BalanceReaders, { useValue: [reader] });
  container.register(TOKENS.FaucetAvailable, { useValue: available });
  return container.resolve(RequestDrip);
}
const principal = (workspaceId: string, fields: Partial<Principal> = {}): Principal => ({
  workspaceId,
  apiKeyId: randomUUID(),
  keyId: 'sk_test_x',
  side: 'test',
  scopes: new Set(SCOPES),
  restrictions: { allowedIps: [], expiresAt: null },
  ...fields,
});
const codeOf = (p: Promise<unknown>) => p.then(() => 'ok', (err: { code: string }) => err.code);

async function walletOf(key: { keyId: string; secret: string }, asset = 'USDT_ETH'): Promise<{ id: string; address: string }> {
  const res = await uniqueCall(t.api.baseUrl, key, 'POST', '/v2/wallets', { chain: 'ETH', asset });
  return { id: res.body.id as string, address: res.body.address as string };
}

describe('faucet requests', () => {
  it('takes a test key with wallets:write, on a deployment with the faucet, for a wallet of the workspace', async () => {
    const wallet = await walletOf(t.ws.testKey);
    const other = await createWorkspace(t.api, 'faucet-other');
    const theirs = await walletOf(other.testKey);
    const ask = { chain: 'ETH' as const, address: wallet.address, assets: [{ symbol: 'USDT_ETH' }] };
    expect(await codeOf(requests().execute(principal(t.ws.workspaceId, { side: 'live', keyId: 'sk_live_x' }), ask))).toBe('FAUCET_ONLY_SANDBOX');
    expect(await codeOf(requests(false).execute(principal(t.ws.workspaceId), ask))).toBe('FAUCET_NOT_SANDBOX');
    expect(await codeOf(requests().execute(principal(t.ws.workspaceId, { scopes: new Set(['wallets:read'] as const) }), ask))).toBe('INSUFFICIENT_SCOPE');
    expect(await codeOf(requests().execute(principal(t.ws.workspaceId), { ...ask, address: theirs.address }))).toBe('FAUCET_ADDRESS_NOT_FOUND');
    // One address rule for every input: malformed, or EVM hex without its EIP-55 checksum (as withdrawals say), is a validation error.
    expect(await codeOf(requests().execute(principal(t.ws.workspaceId), { ...ask, address: 'not-an-address' }))).toBe('VALIDATION_ERROR');
    expect(await codeOf(requests().execute(principal(t.ws.workspaceId), { ...ask, address: wallet.address.toLowerCase() }))).toBe('VALIDATION_ERROR');
    expect(await codeOf(requests().execute(principal(t.ws.workspaceId), { ...ask, chain: 'BSC', assets: [{ symbol: 'USDT_BSC' }] }))).toBe('FAUCET_ADDRESS_NOT_FOUND'); // an ETH wallet's address is not a BSC wallet
    // A wallet watches its own asset only: another asset sent there would never be credited. The address is the
    // workspace's wallet, so the item is at fault: a validation error naming the wallet's asset.
    const foreign = await requests().execute(principal(t.ws.workspaceId), { ...ask, assets: [{ symbol: 'USDT_ETH' }, { symbol: 'USDC_ETH', amount: '25' }] }).catch((e: unknown) => e);
    expect(foreign).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'assets.1.symbol', message: expect.stringContaining('must be USDT_ETH') }] });
    const drip = await requests().execute(principal(t.ws.workspaceId), { ...ask, assets: [{ symbol: 'USDT_ETH', amount: '25' }] });
    expect(drip).toMatchObject({
      network: 'ETH_TESTNET',
      walletId: wallet.id,
      address: wallet.address,
      status: 'QUEUED',
      items: [{ asset: 'USDT_ETH', amount: 25_000_000n, status: 'QUEUED', transferId: null }],
    });
    expect(await t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork).run((tx) => tx.faucet.get(t.ws.workspaceId, ['ETH_TESTNET'], drip.id))).toEqual(drip);
  });

  it('rations native currency: only after a credited token deposit, within the rolling budget and what the dispenser holds', async () => {
    const ws = await createWorkspace(t.api, 'faucet-native');
    const wallet = await walletOf(ws.testKey);
    const native = await walletOf(ws.testKey, 'ETH');
    const eth = (amount: string) => requests().execute(principal(ws.workspaceId), { chain: 'ETH', address: native.address, assets: [{ symbol: 'ETH', amount }] });
    expect(await codeOf(eth('0.05'))).toBe('FAUCET_NATIVE_REQUIRES_DEPOSIT');
    await insertConfirmedUsdtDeposit(sql, ws.workspaceId, wallet); // a credited token deposit opens the native faucet
    expect(await codeOf(eth('0.05'))).toBe('ok');
    dispenserWei = 10n ** 16n; // 0.01 ETH left, less the 0.05 queued
    expect(await codeOf(eth('0.01'))).toBe('FAUCET_DISPENSER_EXHAUSTED');
    dispenserWei = 10n ** 21n;
    // Two at once at the budget's edge (0.05 given, 0.1 a day): exactly one passes.
    const both = await Promise.all([codeOf(eth('0.05')), codeOf(eth('0.05'))]);
    expect(both.sort()).toEqual(['FAUCET_NATIVE_BUDGET_EXCEEDED', 'ok']);
    const refused = await eth('0.000000000000000001').catch((err: Error) => err.message);
    expect(refused).toMatch(/0\.100000000000000000 of the 0\.100000000000000000 budget given in the last 24 hours/);
    // Tokens are not rationed by it.
    expect(await codeOf(requests().execute(principal(ws.workspaceId), { chain: 'ETH', address: wallet.address, assets: [{ symbol: 'USDT_ETH', amount: '10000' }] }))).toBe('ok');
  });

  it('promises the shared dispenser’s native funds one drip at a time, across workspaces', async () => {
    const asks = await Promise.all(
      ['faucet-disp-a', 'faucet-disp-b', 'faucet-disp-c'].map(async (name) => {
        const ws = await createWorkspace(t.api, name);
        await insertConfirmedUsdtDeposit(sql, ws.workspaceId, await walletOf(ws.testKey));
        return { ws, native: await walletOf(ws.testKey, 'ETH') };
      }),
    );
    // What the earlier tests queued stays promised: leave room for exactly one more 0.04 ETH drip.
    const queued = BigInt((await sql(`select coalesce(sum(amount), 0)::text as q from faucet_drip_items where asset = 'ETH' and status = 'QUEUED'`))[0]!.q as string);
    dispenserWei = queued + 6n * 10n ** 16n;
    try {
      const results = await Promise.all(asks.map(({ ws, native }) => codeOf(requests().execute(principal(ws.workspaceId), { chain: 'ETH', address: native.address, assets: [{ symbol: 'ETH', amount: '0.04' }] }))));
      expect(results.sort()).toEqual(['FAUCET_DISPENSER_EXHAUSTED', 'FAUCET_DISPENSER_EXHAUSTED', 'ok']);
    } finally {
      dispenserWei = 10n ** 21n;
    }
  });

  it('limits the drips an hour, counting parallel requests exactly', async () => {
    const ws = await createWorkspace(t.api, 'faucet-rate');
    const wallet = await walletOf(ws.testKey);
    await sql(`insert into faucet_settings (id, max_items, drips_per_hour, updated_at) values (1, 5, 3, now())`);
    try {
      const one = () => codeOf(requests().execute(principal(ws.workspaceId), { chain: 'ETH', address: wallet.address, assets: [{ symbol: 'USDT_ETH', amount: '1' }] }));
      const results = await Promise.all([one(), one(), one(), one(), one()]);
      expect(results.sort()).toEqual(['FAUCET_RATE_LIMITED', 'FAUCET_RATE_LIMITED', 'ok', 'ok', 'ok']);
    } finally {
      await sql(`delete from faucet_settings`);
    }
  });
});
