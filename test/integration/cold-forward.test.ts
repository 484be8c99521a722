// The hot treasury's surplus to cold storage on a real anvil (issue 31): with
// a ceiling of 100 USDT and a float of 50, a treasury holding 300 forwards
// 250 to the cold address, exactly once, through the outgoing-transfer
// pipeline; what unsent withdrawals need stays hot; the ledger books the
// money as in transit, then cold, and no workspace balance changes; a
// pending cold address is never used. A withdrawal waiting for funds asks
// for a refill; a transfer from the cold address to the treasury is booked
// once as a refill (cold → hot), one from anyone else is not. Only what the
// books hold hot (customers' money) goes cold: what reached the treasury from
// outside the books stays hot. A treasury short of gas is topped up by the
// gas tank first.
import { randomUUID } from 'node:crypto';
import { encodeFunctionData, erc20Abi, getAddress, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvmChainPort } from '../../src/adapters/chains/evm-chain.js';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { ForwardSurplus } from '../../src/application/custody/forward-surplus.js';
import { RecognizeRefills } from '../../src/application/custody/recognize-refills.js';
import { ReconcileCold } from '../../src/application/custody/reconcile-cold.js';
import { CheckLedger } from '../../src/application/ledger/check-ledger.js';
import { ReconcileChain } from '../../src/application/ledger/reconcile-chain.js';
import { ProcessTransfers, TransferOutcomes } from '../../src/application/transfers/process-transfers.js';
import { TOKENS } from '../../src/application/tokens.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { changePolicy } from '../../src/domain/custody/treasury-policy.js';
import { creditDeposit } from '../../src/domain/ledger/entries.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { startTestChain, type TestChain } from '../support/anvil-chain.js';
import { TEST_SEED, useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'cold-forward', env: { ETH_TESTNET_CONFIRMATIONS: '1' } });
const COLD = getAddress('0x3333333333333333333333333333333333333333');
const LATER = getAddress('0x4444444444444444444444444444444444444444');
let chain: TestChain;

beforeAll(async () => {
  chain = await startTestChain({ chainId: 11155111, decimals: [6] });
});
afterAll(async () => {
  await chain?.stop();
});

const tokenBalance = async (address: string): Promise<bigint> =>
  BigInt(
    await rpc<string>(chain.anvil.rpcUrl, 'eth_call', [{ to: chain.tokens[0], data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [address as Hex] }) }, 'latest']),
  );

describe('forwarding the surplus to cold storage', () => {
  it('sends what is above the ceiling down to the float, once, keeping what unsent withdrawals need; the ledger holds it as cold', async () => {
    const container = t.api.infra.container.createChildContainer();
    const signer = new LocalHdSigner(TEST_SEED);
    container.register(TOKENS.Signer, { useValue: signer });
    container.register(TOKENS.AddressDeriver, { useValue: signer });
    container.registerInstance(TransferOutcomes, new TransferOutcomes());
    const forward = container.resolve(ForwardSurplus);
    const refills = container.resolve(RecognizeRefills);
    const pipeline = container.resolve(ProcessTransfers);
    const uow = container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const port = new EvmChainPort({ network: 'ETH_TESTNET', urls: [chain.anvil.rpcUrl], contracts: { USDT_ETH: chain.tokens[0]! }, retryDelayMs: 10, retryCount: 1, timeoutMs: 5000 });
    const treasury = await signer.deriveAddress('ETH', servicePath('ETH_TESTNET', 'treasury'));
    await rpc(chain.anvil.rpcUrl, 'anvil_setBalance', [treasury, `0x${(10n ** 20n).toString(16)}`]);
    // Customers' money in the treasury: sent there and booked as a swept deposit of the workspace would be.
    const deposited = async (units: bigint) => {
      await chain.sendToken(chain.tokens[0]!, treasury, units);
      await uow.run((tx) =>
        tx.ledger.post(
          creditDeposit({ id: randomUUID(), network: 'ETH_TESTNET', at: new Date(), depositId: randomUUID(), workspaceId: t.ws.workspaceId, gross: Amount.ofUnits('USDT_ETH', units), fee: Amount.zero('USDT_ETH') }),
        ),
      );
    };
    await deposited(300_000_000n);
    await chain.mine();
    const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);
    // The books against the chain: the 300 booked are there, and forwarding (requested, then mined) leaves the
    // books and the chain agreeing: what left for cold storage is booked out until it is in a block.
    const difference = async () => {
      await chain.mine(2);
      const run = await container.resolve(ReconcileChain).execute(port, { holdPayouts: false, windowDays: 7 });
      return run.assets.find((a) => a.asset === 'USDT_ETH')?.difference;
    };
    expect(await difference()).toBe(0n);
    const balancesBefore = await sql(`select owner, kind, balance::text from ledger_accounts where owner <> 'SERVICE' order by id`);

    // A policy whose cold address is still in its cooling-off: nothing moves.
    const now = new Date();
    const limits = { network: 'ETH_TESTNET' as const, asset: 'USDT_ETH' as const, ceiling: 100_000_000n, targetFloat: 50_000_000n, floor: 20_000_000n };
    await uow.run((tx) => tx.treasury.savePolicy(changePolicy(null, { ...limits, coldAddress: LATER, coolingOffHours: 48 }, now)));
    expect((await forward.step(port)).forwarded).toEqual([]);

    // In force (no cooling-off): 300 held, 250 go.
    await uow.run((tx) => tx.treasury.savePolicy(changePolicy(null, { ...limits, coldAddress: COLD, coolingOffHours: 0 }, now)));
    const first = await forward.step(port);
    expect(first.forwarded).toEqual([{ asset: 'USDT_ETH', amount: 250_000_000n, to: COLD, transferId: expect.any(String) }]);
    // Asked again while the forward is on its way: nothing more (one at a time, and its amount counts as gone).
    expect((await forward.step(port)).forwarded).toEqual([]);
    expect(await difference()).toBe(0n);
    const transferId = first.forwarded[0]!.transferId;
    for (let i = 0; i < 12; i++) {
      await pipeline.step(port, { replaceAfterMs: 600_000, rebroadcastAfterMs: 600_000, batch: 10 });
      if ((await uow.run((tx) => tx.transfers.get(transferId)))!.status === 'CONFIRMED') break;
      await chain.mine();
    }
    expect((await uow.run((tx) => tx.transfers.get(transferId)))!.status).toBe('CONFIRMED');
    expect(await tokenBalance(COLD)).toBe(250_000_000n);
    expect(await tokenBalance(LATER)).toBe(0n);
    expect(await tokenBalance(treasury)).toBe(50_000_000n);
    const service = async (kind: string) =>
      (await sql<{ balance: string }>(`select balance::text from ledger_accounts where owner = 'SERVICE' and kind = ? and network = 'ETH_TESTNET' and asset = 'USDT_ETH'`, [kind]))[0]?.balance;
    expect([await service('COLD'), await service('COLD_IN_TRANSIT')]).toEqual(['-250000000', '0']);
    expect(await sql(`select owner, kind, balance::text from ledger_accounts where owner <> 'SERVICE' order by id`)).toEqual(balancesBefore);
    expect(await difference()).toBe(0n);
    // ops ledger check: the customers' 300 covered by hot (50) + cold (250) + in transit; the forward is cold, booked.
    const check = await container.resolve(CheckLedger).execute();
    expect(check.ok).toBe(true);
    expect(check.custody.find((c) => c.network === 'ETH_TESTNET' && c.asset === 'USDT_ETH')).toMatchObject({ hot: '50000000', cold: '250000000', inTransit: '0', covered: true });
    // At the float: nothing more, and no refill asked (50 held, floor 20).
    const atFloat = await forward.step(port);
    expect([atFloat.forwarded, atFloat.hot]).toEqual([[], [{ asset: 'USDT_ETH', held: 50_000_000n, reserved: 0n, refill: 0n, targetFloat: 50_000_000n }]]);

    // A withdrawal of 120 waits for funds: 50 held, 120 needed. A refill of 120 is asked (back to the float once it is paid).
    expect((await refills.step(port)).booked).toEqual([]); // the refill reader starts here
    await sql(
      `insert into withdrawals (id, workspace_id, network, asset, amount, fee, net_amount, destination, status, idempotency_key, transfer_id, txid, failure, requested_at, confirmed_at, updated_at)
       values (?, ?, 'ETH_TESTNET', 'USDT_ETH', 121000000, 1000000, 120000000, ?, 'PENDING_APPROVAL', null, null, null, null, now(), null, now())`,
      [randomUUID(), t.ws.workspaceId, LATER],
    );
    const waiting = await forward.step(port);
    expect([waiting.forwarded, waiting.hot]).toEqual([[], [{ asset: 'USDT_ETH', held: 50_000_000n, reserved: 120_000_000n, refill: 120_000_000n, targetFloat: 50_000_000n }]]);

    // A person sends 120 from the cold address (its own key: impersonated here) and someone else sends 7: the first is a refill, booked
    // once (cold 250 → 130), the second nothing of the books' (no deposit address received it).
    await rpc(chain.anvil.rpcUrl, 'anvil_impersonateAccount', [COLD]);
    await rpc(chain.anvil.rpcUrl, 'anvil_setBalance', [COLD, `0x${(10n ** 18n).toString(16)}`]);
    const refillTx = await rpc<string>(chain.anvil.rpcUrl, 'eth_sendTransaction', [
      { from: COLD, to: chain.tokens[0], data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [treasury as Hex, 120_000_000n] }), gas: '0x30000' },
    ]);
    await chain.sendToken(chain.tokens[0]!, treasury, 7_000_000n);
    await chain.mine();
    const refilled = await refills.step(port);
    expect(refilled.booked).toEqual([{ asset: 'USDT_ETH', amount: 120_000_000n, txid: refillTx.toLowerCase(), from: COLD }]);
    expect((await refills.step(port)).booked).toEqual([]);
    expect([await service('COLD'), await service('COLD_IN_TRANSIT')]).toEqual(['-130000000', '0']);
    const after = await forward.step(port);
    expect(after.hot).toEqual([{ asset: 'USDT_ETH', held: 177_000_000n, reserved: 120_000_000n, refill: 0n, targetFloat: 50_000_000n }]);
    expect(await sql(`select count(*)::int as n from deposits`)).toEqual([{ n: 0 }]);

    // 400 more customers' money arrive while the withdrawal still waits: 577 held, of which the books hold 570 hot
    // (the 7 from someone else is no customer's: it stays hot); 120 kept for the withdrawal, 400 go.
    await deposited(400_000_000n);
    await chain.mine();
    const second = await forward.step(port);
    expect(second.forwarded.map((f) => f.amount)).toEqual([400_000_000n]);

    // The token blocks the cold address before that forward is sent: it reverts on chain, FAILED, booked back to the
    // hot treasury. No forward is tried again by itself (the next would fail the same way): the operator sets the policy again.
    await chain.setBlocked(chain.tokens[0]!, COLD, true);
    await chain.mine();
    const failedId = second.forwarded[0]!.transferId;
    for (let i = 0; i < 30; i++) {
      await pipeline.step(port, { replaceAfterMs: 600_000, rebroadcastAfterMs: 600_000, batch: 10 });
      if ((await uow.run((tx) => tx.transfers.get(failedId)))!.status === 'FAILED') break;
      await chain.mine();
    }
    expect((await uow.run((tx) => tx.transfers.get(failedId)))!.status).toBe('FAILED');
    expect([await service('COLD'), await service('COLD_IN_TRANSIT')]).toEqual(['-130000000', '0']);
    const stopped = await forward.step(port);
    expect([stopped.forwarded, stopped.blocked.map((b) => b.kind)]).toEqual([[], ['failed']]);
    expect((await forward.step(port)).forwarded).toEqual([]);
    await chain.setBlocked(chain.tokens[0]!, COLD, false);
    await chain.mine();
    await uow.run(async (tx) => tx.treasury.savePolicy(changePolicy(await tx.treasury.policyForUpdate('ETH_TESTNET', 'USDT_ETH'), limits, new Date())));
    expect((await forward.step(port)).forwarded.map((f) => f.amount)).toEqual([400_000_000n]);

    // ops treasury reconcile: the cold address holds what the books say (250 forwarded, 120 refilled), the new forward in transit.
    const reconcileCold = () => container.resolve(ReconcileCold).execute([port], 'ETH_TESTNET');
    expect(await reconcileCold()).toEqual({
      ok: true,
      cold: [{ chain: 'ETH_TESTNET', asset: 'USDT_ETH', cold_address: COLD, booked: '130.000000', in_transit: '400.000000', on_chain: '130.000000', difference: '0.000000', verdict: 'ok' }],
    });
    // Someone else sends 5 to the cold address: a surplus, reported, not booked. Then 10 leave it: a shortfall of 5.
    await chain.sendToken(chain.tokens[0]!, COLD, 5_000_000n);
    await chain.mine();
    expect((await reconcileCold()).cold[0]).toMatchObject({ on_chain: '135.000000', difference: '5.000000', verdict: 'surplus' });
    await rpc(chain.anvil.rpcUrl, 'eth_sendTransaction', [
      { from: COLD, to: chain.tokens[0], data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [LATER as Hex, 10_000_000n] }), gas: '0x30000' },
    ]);
    await chain.mine();
    const short = await reconcileCold();
    expect([short.ok, short.cold[0]!.difference, short.cold[0]!.verdict]).toEqual([false, '-5.000000', 'shortfall']);
    expect([await service('COLD'), await service('COLD_IN_TRANSIT')]).toEqual(['-130000000', '-400000000']);

    // The cold address sends the treasury more than the books hold cold (1000 it got from elsewhere with the 125
    // left): only the 130 booked cold come back into the books; the rest reaches the treasury unbooked.
    await chain.sendToken(chain.tokens[0]!, COLD, 1_000_000_000n);
    await chain.mine();
    const bigTx = await rpc<string>(chain.anvil.rpcUrl, 'eth_sendTransaction', [
      { from: COLD, to: chain.tokens[0], data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [treasury as Hex, 1_125_000_000n] }), gas: '0x30000' },
    ]);
    await chain.mine();
    expect((await refills.step(port)).booked).toEqual([{ asset: 'USDT_ETH', amount: 130_000_000n, txid: bigTx.toLowerCase(), from: COLD }]);
    expect(await service('COLD')).toBe('0');

    // A treasury with no gas: the gas tank tops it up (as it does deposit addresses for sweeps), then the forward goes.
    const settle = async (id: string) => {
      for (let i = 0; i < 30; i++) {
        await pipeline.step(port, { replaceAfterMs: 600_000, rebroadcastAfterMs: 600_000, batch: 10 });
        if ((await uow.run((tx) => tx.transfers.get(id)))!.status === 'CONFIRMED') return;
        await chain.mine();
      }
      throw new Error(`transfer ${id} not confirmed: ${JSON.stringify(await sql(`select status, failure from outgoing_transfers where id = ?`, [id]))}`);
    };
    // The forward of 400 still on its way goes first, while the treasury has gas (the cold address holds some of
    // the token again, as when its gas was estimated: a transfer to an empty balance costs more gas).
    await chain.sendToken(chain.tokens[0]!, COLD, 1_000_000n);
    for (const open of await sql<{ id: string }>(`select id from outgoing_transfers where kind = 'COLD_FORWARD' and status not in ('CONFIRMED', 'FAILED')`)) await settle(open.id);
    const gasTank = await signer.deriveAddress('ETH', servicePath('ETH_TESTNET', 'gasTank'));
    await rpc(chain.anvil.rpcUrl, 'anvil_setBalance', [treasury, '0x0']);
    await rpc(chain.anvil.rpcUrl, 'anvil_setBalance', [gasTank, `0x${(10n ** 18n).toString(16)}`]);
    await deposited(500_000_000n);
    await chain.mine();
    const noGas = await forward.step(port);
    expect([noGas.forwarded, noGas.blocked.map((b) => b.why)]).toEqual([[], [expect.stringMatching(/the treasury lacks the gas: the gas tank tops it up with \d+ ETH/)]]);
    // Asked again meanwhile: the one top-up on its way, no second.
    expect((await forward.step(port)).blocked.map((b) => b.why)).toEqual(["waiting for the gas tank's top-up of the treasury"]);
    const topUps = await sql<{ id: string; from_address: string }>(`select id, from_address from outgoing_transfers where kind = 'GAS_TOPUP' and to_address = ?`, [treasury]);
    expect(topUps.map((u) => u.from_address)).toEqual([gasTank]);
    await settle(topUps[0]!.id);
    const topped = await forward.step(port);
    expect(topped.forwarded).toHaveLength(1);
    await settle(topped.forwarded[0]!.transferId);
  }, 120_000);
});
