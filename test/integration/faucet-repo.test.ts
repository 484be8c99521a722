// The faucet's tables through their repository on the real database: a drip
// and its items read back exactly, scoped to the workspace and the network;
// statuses and transfers are saved; the drip count and what was given per
// asset in a window leave failed items out; the chain-worker's list holds
// the drips with an item not sent yet; the limits are the defaults with the
// operator's rows applied.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import { DEFAULT_FAUCET_LIMITS, type Drip } from '../../src/domain/faucet/faucet.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { createWorkspace, useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'faucet-repo' });
const uow = () => t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
const sql = (text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute(text, params);
const at = (minute: number) => new Date(Date.UTC(2026, 10, 26, 9, minute));

const drip = (fields: Partial<Drip>): Drip => ({
  id: randomUUID(),
  workspaceId: t.ws.workspaceId,
  network: 'ETH_TESTNET',
  walletId: randomUUID(),
  address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  status: 'QUEUED',
  items: [
    { asset: 'USDT_ETH', amount: 1_000_000_000n, status: 'QUEUED', transferId: null },
    { asset: 'ETH', amount: 10n ** 16n, status: 'QUEUED', transferId: null },
  ],
  createdAt: at(0),
  updatedAt: at(0),
  ...fields,
});

describe('the faucet tables', () => {
  it('store, scope, update, count and hand out drips', async () => {
    const other = await createWorkspace(t.api, 'faucet-other');
    const first = drip({ createdAt: at(1), updatedAt: at(1) });
    const second = drip({ createdAt: at(2), updatedAt: at(2), items: [{ asset: 'ETH', amount: 2n * 10n ** 16n, status: 'QUEUED', transferId: null }] });
    const theirs = drip({ workspaceId: other.workspaceId, createdAt: at(3), updatedAt: at(3) });
    const bsc = drip({ network: 'BSC_TESTNET', createdAt: at(4), updatedAt: at(4), items: [{ asset: 'BNB', amount: 5n * 10n ** 16n, status: 'QUEUED', transferId: null }] });
    await uow().run(async (tx) => {
      for (const d of [first, second, theirs, bsc]) await tx.faucet.add(d);
    });
    await uow().run(async (tx) => {
      expect(await tx.faucet.get(t.ws.workspaceId, ['ETH_TESTNET'], first.id)).toEqual(first);
      expect(await tx.faucet.get(other.workspaceId, ['ETH_TESTNET'], first.id)).toBeNull();
      expect(await tx.faucet.get(t.ws.workspaceId, ['BSC_TESTNET'], first.id)).toBeNull();
      expect(await tx.faucet.countSince(t.ws.workspaceId, at(0))).toBe(3);
      expect(await tx.faucet.countSince(t.ws.workspaceId, at(2))).toBe(1); // after 09:02
      expect(await tx.faucet.queuedIds('ETH_TESTNET', 10)).toEqual([first.id, second.id, theirs.id]);
    });
    // The chain-worker takes the first drip's items; the ETH one fails.
    const transfer = randomUUID();
    await uow().run(async (tx) => {
      const d = (await tx.faucet.lock(first.id))!;
      await tx.faucet.save({
        ...d,
        status: 'FAILED',
        items: [
          { ...d.items[0]!, status: 'CONFIRMED', transferId: transfer },
          { ...d.items[1]!, status: 'FAILED', transferId: randomUUID() },
        ],
        updatedAt: at(5),
      });
    });
    await uow().run(async (tx) => {
      expect((await tx.faucet.byTransfer(transfer))!).toMatchObject({ id: first.id, status: 'FAILED', updatedAt: at(5) });
      expect(await tx.faucet.queuedIds('ETH_TESTNET', 10)).toEqual([second.id, theirs.id]);
      // Given since 09:00: the first drip's USDT (its ETH failed), the second's ETH, the BSC drip's BNB.
      const given = await tx.faucet.givenSince(t.ws.workspaceId, at(0));
      expect(Object.fromEntries(given)).toEqual({ USDT_ETH: 1_000_000_000n, ETH: 2n * 10n ** 16n, BNB: 5n * 10n ** 16n });
    });
  });

  it('reads the limits: the defaults, with the operator’s rows applied', async () => {
    expect(await uow().run((tx) => tx.faucet.limits())).toEqual(DEFAULT_FAUCET_LIMITS);
    await sql(`insert into faucet_settings (id, max_items, drips_per_hour, updated_at) values (1, 3, 5, now())`);
    await sql(`insert into faucet_asset_limits (asset, default_amount, cap, budget, updated_at) values ('ETH', 1, 2, 3, now())`);
    const limits = await uow().run((tx) => tx.faucet.limits());
    expect(limits).toMatchObject({ maxItems: 3, dripsPerHour: 5, assets: { ETH: { defaultAmount: 1n, cap: 2n, budget: 3n }, USDT_ETH: DEFAULT_FAUCET_LIMITS.assets.USDT_ETH } });
    await sql(`delete from faucet_settings`);
    await sql(`delete from faucet_asset_limits`);
  });
});
