// The TRON stand-in's Stake 2.0 rules over its real HTTP API and backing
// anvil, transactions signed with tronweb: java-tron's refusals at broadcast
// (and at build), energy from a stake as java-tron's formula gives it, a USDT
// transfer paid with delegated energy (65,000 / 130,000 energy), partial
// energy burning the rest, undelegation moving usage back, regeneration over a
// shortened window, the unfreeze delay, free bandwidth, a restart with a state
// file, and each Stake 2.0 transaction shown as its own contract in its block.
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TronWeb, utils as tronUtils } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { startTronStandin } from '../../src/adapters/sandbox/tron-standin.js';
import { freePort } from '../support/free-port.js';
import { TRON_OUTSIDE_KEY, startTestTron, type TestTron } from '../support/tron-chain.js';

const TRX = 1_000_000n;
/** anvil's well-known accounts #3 and #4 (test mnemonic): a receiver of delegations and a USDT sender. */
const RECEIVER_KEY = '7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
const SENDER_KEY = '47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a';
/** A USDT holder-to-be: its first transfer in costs 130,000 energy, the next ones 65,000. */
const holder = TronWeb.address.fromPrivateKey(`${'1'.repeat(63)}2`) as string;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hexOf = (base58: string) => TronWeb.address.toHex(base58).toLowerCase();

let tron: TestTron;
let outside: string;
let receiver: string;
let sender: string;

async function post(url: string, path: string, body: Record<string, unknown>, prefix = 'wallet'): Promise<Record<string, any>> {
  const res = await fetch(`${url}/${prefix}/${path}`, { method: 'POST', body: JSON.stringify(body) });
  return (await res.json()) as Record<string, any>;
}
const api = (path: string, body: Record<string, unknown>) => post(tron.standin.url, path, body);

/** A transaction built here (not by the node, so the node's build-time checks are skipped), as tronweb would. */
async function localTx(url: string, type: string, value: Record<string, unknown>) {
  const head = await post(url, 'getnowblock', {});
  const number = head.block_header.raw_data.number as number;
  const raw_data = {
    contract: [{ parameter: { value, type_url: `type.googleapis.com/protocol.${type}` }, type }],
    ref_block_bytes: number.toString(16).padStart(4, '0').slice(-4),
    ref_block_hash: (head.blockID as string).slice(16, 32),
    expiration: Date.now() + 60_000,
    timestamp: Date.now(),
  };
  const tx: Record<string, unknown> = { visible: false, txID: '', raw_data, raw_data_hex: '' };
  tx.raw_data_hex = tronUtils.transaction.txPbToRawDataHex(tronUtils.transaction.txJsonToPb(tx as never)).toLowerCase();
  tx.txID = createHash('sha256').update(Buffer.from(tx.raw_data_hex as string, 'hex')).digest('hex');
  return tx;
}

/** Signs `tx` with `key` and broadcasts it; returns the node's answer with its message decoded. */
async function send(url: string, tx: Record<string, unknown>, key: string): Promise<Record<string, any>> {
  const signed = (await new TronWeb({ fullHost: url }).trx.sign(tx as never, key)) as unknown as Record<string, unknown>;
  const out = await post(url, 'broadcasttransaction', signed);
  return { ...out, message: out.message ? Buffer.from(out.message as string, 'hex').toString('utf8') : undefined, txid: tx.txID as string };
}

/** Builds a Stake 2.0 transaction through the node's route, signs, broadcasts and mines it. */
async function stake(route: string, body: Record<string, unknown>, key = TRON_OUTSIDE_KEY) {
  const built = await api(route, body);
  if (built.Error) throw new Error(built.Error as string);
  const sent = await send(tron.standin.url, built, key);
  if (sent.result !== true) throw new Error(`${route}: ${sent.code} ${sent.message}`);
  await tron.mine();
  return sent.txid;
}

const resource = (address: string) => api('getaccountresource', { address: hexOf(address) });
const info = (txid: string) => api('gettransactioninfobyid', { value: txid });
const balanceOf = async (address: string) => BigInt(((await api('getaccount', { address: hexOf(address) })).balance as number | undefined) ?? 0);

/** A USDT transfer from the sender, built by the node; returns its transaction info once mined. */
async function transferUsdt(to: string, amount: bigint, feeLimit = 100_000_000) {
  const built = await tron.tronWeb.transactionBuilder.triggerSmartContract(tron.token, 'transfer(address,uint256)', { feeLimit }, [{ type: 'address', value: to }, { type: 'uint256', value: amount.toString() }], sender);
  const sent = await send(tron.standin.url, built.transaction as unknown as Record<string, unknown>, SENDER_KEY);
  expect(sent.result).toBe(true);
  await tron.mine();
  return info(sent.txid);
}

beforeAll(async () => {
  tron = await startTestTron({ unfreezeDelaySeconds: 3 });
  outside = tron.outside;
  receiver = TronWeb.address.fromPrivateKey(RECEIVER_KEY) as string;
  sender = TronWeb.address.fromPrivateKey(SENDER_KEY) as string;
  await tron.tronWeb.trx.sendTrx(receiver, Number(100n * TRX));
  await tron.tronWeb.trx.sendTrx(sender, Number(100n * TRX));
  await tron.mine();
}, 60_000);

afterAll(async () => {
  await tron?.stop();
});

describe('the TRON stand-in’s Stake 2.0', () => {
  describe('refuses what java-tron refuses, with its words', () => {
    const refused = async (type: string, value: Record<string, unknown>, key = TRON_OUTSIDE_KEY) => {
      const out = await send(tron.standin.url, await localTx(tron.standin.url, type, value), key);
      expect(out.result).not.toBe(true);
      expect(out.code).toBe('CONTRACT_VALIDATE_ERROR');
      return out.message;
    };
    const o = () => hexOf(outside);
    const r = () => hexOf(receiver);

    it('stakes of less than 1 TRX or more than the balance', async () => {
      expect(await refused('FreezeBalanceV2Contract', { owner_address: o(), frozen_balance: 999_999, resource: 'ENERGY' })).toBe('frozenBalance must be greater than or equal to 1 TRX');
      const held = await balanceOf(outside);
      expect(await refused('FreezeBalanceV2Contract', { owner_address: o(), frozen_balance: Number(held + TRX), resource: 'ENERGY' })).toBe('frozenBalance must be less than or equal to accountBalance');
      expect(await refused('FreezeBalanceV2Contract', { owner_address: o(), frozen_balance: 5_000_000 })).toMatch(/ENERGY only, not BANDWIDTH/);
      // The node's own route refuses at build time too.
      expect((await api('freezebalancev2', { owner_address: o(), frozen_balance: 10, resource: 'ENERGY' })).Error).toBe('class org.tron.core.exception.ContractValidateException : frozenBalance must be greater than or equal to 1 TRX');
    });

    it('unfreezing with nothing staked, or more than staked', async () => {
      expect(await refused('UnfreezeBalanceV2Contract', { owner_address: r(), unfreeze_balance: 1_000_000, resource: 'ENERGY' }, RECEIVER_KEY)).toBe('no frozenBalance(Energy)');
      await stake('freezebalancev2', { owner_address: r(), frozen_balance: 10_000_000, resource: 'ENERGY' }, RECEIVER_KEY);
      expect(await refused('UnfreezeBalanceV2Contract', { owner_address: r(), unfreeze_balance: 10_000_001, resource: 'ENERGY' }, RECEIVER_KEY)).toBe('Invalid unfreeze_balance, [10000001] is error');
    });

    it('delegating more than available, to itself, to an account never activated, to a contract', async () => {
      await stake('freezebalancev2', { owner_address: o(), frozen_balance: 2_000_000, resource: 'ENERGY' });
      const max = BigInt(((await api('getcandelegatedmaxsize', { owner_address: o(), type: 1 })).max_size as number | undefined) ?? 0);
      expect(max).toBeGreaterThanOrEqual(2n * TRX);
      expect(await refused('DelegateResourceContract', { owner_address: o(), resource: 'ENERGY', balance: Number(max + TRX), receiver_address: r() })).toBe('delegateBalance must be less than or equal to available FreezeEnergyV2 balance');
      expect(await refused('DelegateResourceContract', { owner_address: o(), resource: 'ENERGY', balance: 1_000_000, receiver_address: o() })).toBe('receiverAddress must not be the same as ownerAddress');
      const nobody = `41${'7'.repeat(40)}`;
      expect(await refused('DelegateResourceContract', { owner_address: o(), resource: 'ENERGY', balance: 1_000_000, receiver_address: nobody })).toBe(`Account[${nobody}] not exists`);
      expect(await refused('DelegateResourceContract', { owner_address: o(), resource: 'ENERGY', balance: 1_000_000, receiver_address: hexOf(tron.token) })).toBe('Do not allow delegate resources to contract addresses');
      expect(await refused('DelegateResourceContract', { owner_address: o(), resource: 'ENERGY', balance: 999_999, receiver_address: r() })).toBe('delegateBalance must be greater than or equal to 1 TRX');
    });

    it('reclaiming what was not delegated, or more than was', async () => {
      expect(await refused('UnDelegateResourceContract', { owner_address: o(), resource: 'ENERGY', balance: 1_000_000, receiver_address: hexOf(sender) })).toBe('delegated Resource does not exist');
      await stake('delegateresource', { owner_address: o(), receiver_address: r(), balance: 1_000_000, resource: 'ENERGY' });
      expect(await refused('UnDelegateResourceContract', { owner_address: o(), resource: 'ENERGY', balance: 2_000_000, receiver_address: r() })).toBe('insufficient delegateFrozenBalance(Energy), request=2000000, unlock_balance=1000000');
      await stake('undelegateresource', { owner_address: o(), receiver_address: r(), balance: 1_000_000, resource: 'ENERGY' });
    });

    it('withdrawing before the unfreeze delay has passed', async () => {
      expect(await refused('WithdrawExpireUnfreezeContract', { owner_address: o() })).toBe('no unFreeze balance to withdraw ');
    });

    it('amounts its protobuf codec cannot carry exactly (beyond 2^53 sun), signed or asked of its routes, moving nothing', async () => {
      const before = await balanceOf(outside);
      const huge = 2 ** 53 + 2; // a JS number the encoder writes as is, and the decoder cannot give back exactly
      expect(await refused('TransferContract', { owner_address: o(), to_address: r(), amount: huge })).toBe('to_address and a positive amount are required');
      expect(await refused('FreezeBalanceV2Contract', { owner_address: o(), frozen_balance: huge, resource: 'ENERGY' })).toBe('the amount is not an int64 the stand-in reads exactly');
      expect((await api('freezebalancev2', { owner_address: o(), frozen_balance: '9007199254740994', resource: 'ENERGY' })).Error).toMatch(/frozen_balance must be an int64 of sun below 2\^53/);
      await tron.mine();
      expect(await balanceOf(outside)).toBe(before);
    });
  });

  it('gives a stake the energy of java-tron’s formula, the TRX leaving the balance', async () => {
    const before = await resource(outside);
    const held = await balanceOf(outside);
    const txid = await stake('freezebalancev2', { owner_address: outside, frozen_balance: 100_000_000_000, resource: 'ENERGY', visible: true });
    const after = await resource(outside);
    expect(BigInt(after.TotalEnergyWeight)).toBe(BigInt(before.TotalEnergyWeight) + 100_000n);
    expect(after.TotalEnergyLimit).toBe(180_000_000_000);
    const own = BigInt((await api('getaccount', { address: hexOf(outside) })).frozenV2[0].amount);
    expect(BigInt(after.EnergyLimit)).toBe((own * 180_000_000_000n) / (TRX * BigInt(after.TotalEnergyWeight)));
    const fee = BigInt(((await info(txid)).fee as number | undefined) ?? 0);
    expect(held - (await balanceOf(outside))).toBe(100_000n * TRX + fee);
  });

  it('pays a USDT transfer with delegated energy: 130,000 to a first holder, 65,000 after, no TRX burnt for energy', async () => {
    await tron.sendToken(sender, 50_000_000n);
    await stake('delegateresource', { owner_address: hexOf(outside), receiver_address: hexOf(sender), balance: 20_000_000_000, resource: 'ENERGY' });
    const limit = BigInt((await resource(sender)).EnergyLimit);
    expect(limit).toBeGreaterThan(195_000n); // 20,000 TRX: about 200,000 energy
    const estimate = await api('triggerconstantcontract', { owner_address: hexOf(sender), contract_address: hexOf(tron.token), function_selector: 'transfer(address,uint256)', parameter: tron.tronWeb.utils.abi.encodeParams(['address', 'uint256'], [hexOf(holder).replace(/^41/, '0x'), 1_000_000]).slice(2) });
    expect(estimate.energy_used).toBe(130_000);
    const first = await transferUsdt(holder, 1_000_000n);
    expect(first.receipt).toMatchObject({ energy_usage: 130_000, energy_usage_total: 130_000, result: 'SUCCESS' });
    expect(first.receipt.energy_fee).toBeUndefined();
    const second = await transferUsdt(holder, 1_000_000n);
    expect(second.receipt).toMatchObject({ energy_usage: 65_000, energy_usage_total: 65_000, result: 'SUCCESS' });
    expect(second.receipt.energy_fee).toBeUndefined();
  });

  it('uses what energy there is and burns TRX for the rest', async () => {
    const r = await resource(sender);
    const available = BigInt(r.EnergyLimit) - BigInt(r.EnergyUsed ?? 0);
    expect(available).toBeLessThan(65_000n);
    const out = await transferUsdt(holder, 1_000_000n);
    const used = BigInt(out.receipt.energy_usage);
    expect(out.receipt.energy_usage_total).toBe(65_000);
    expect(used).toBeGreaterThanOrEqual(available); // a little came back since it was read
    expect(used).toBeLessThan(available + 100n);
    expect(BigInt(out.receipt.energy_fee)).toBe((65_000n - used) * 210n);
    expect(BigInt(out.fee)).toBe(BigInt(out.receipt.energy_fee) + BigInt(out.receipt.net_fee ?? 0));
  });

  it('moves the receiver’s usage back to the owner when the delegation is taken back', async () => {
    const ownerBefore = BigInt((await resource(outside)).EnergyUsed ?? 0);
    const receiverBefore = BigInt((await resource(sender)).EnergyUsed);
    const txid = await stake('undelegateresource', { owner_address: hexOf(outside), receiver_address: hexOf(sender), balance: 20_000_000_000, resource: 'ENERGY' });
    expect((await resource(sender)).EnergyUsed).toBeUndefined();
    expect((await resource(sender)).EnergyLimit).toBeUndefined();
    const moved = BigInt((await resource(outside)).EnergyUsed) - ownerBefore;
    expect(moved).toBeGreaterThan(receiverBefore - 100n);
    expect(moved).toBeLessThanOrEqual(receiverBefore);
    expect(await api('getdelegatedresourcev2', { fromAddress: hexOf(outside), toAddress: hexOf(sender) })).toEqual({});
    // Shown as itself in its block, never as a transfer to or from the vault.
    const tx = await api('gettransactionbyid', { value: txid });
    expect(tx.raw_data.contract[0].type).toBe('UnDelegateResourceContract');
    const block = await api('getblockbynum', { num: (await info(txid)).blockNumber });
    expect(block.transactions.map((t: any) => t.raw_data.contract[0].type)).toEqual(['UnDelegateResourceContract']);
  });

  it('shows delegations, the account’s stake fields and the chain parameters as java-tron does', async () => {
    await stake('delegateresource', { owner_address: hexOf(outside), receiver_address: hexOf(receiver), balance: 5_000_000, resource: 'ENERGY' });
    expect(await api('getdelegatedresourcev2', { fromAddress: outside, toAddress: receiver, visible: true })).toEqual({ delegatedResource: [{ from: outside, to: receiver, frozen_balance_for_energy: 5_000_000 }] });
    const index = await api('getdelegatedresourceaccountindexv2', { value: hexOf(receiver) });
    expect(index).toMatchObject({ account: hexOf(receiver), fromAccounts: [hexOf(outside)] });
    const account = await api('getaccount', { address: hexOf(receiver) });
    expect(account.frozenV2).toEqual([{ type: 'ENERGY', amount: 10_000_000 }]);
    expect(account.account_resource).toMatchObject({ acquired_delegated_frozenV2_balance_for_energy: 5_000_000 });
    expect((await api('getaccount', { address: hexOf(outside) })).account_resource.delegated_frozenV2_balance_for_energy).toBe(5_000_000);
    const params = Object.fromEntries(((await api('getchainparameters', {})).chainParameter as { key: string; value: number }[]).map((p) => [p.key, p.value]));
    expect(params).toMatchObject({ getTotalEnergyCurrentLimit: 180_000_000_000, getUnfreezeDelayDays: 14, getFreeNetLimit: 600, getEnergyFee: 210 });
    expect(await post(tron.standin.url, 'getaccountresource', { address: hexOf(receiver) }, 'walletsolidity')).toMatchObject({ freeNetLimit: 600 });
  });

  it('withdraws unstaked TRX once the (shortened) unfreeze delay has passed', async () => {
    const unfreeze = await stake('unfreezebalancev2', { owner_address: hexOf(outside), unfreeze_balance: 1_000_000_000, resource: 'ENERGY' });
    expect((await api('getaccount', { address: hexOf(outside) })).unfrozenV2).toEqual([{ type: 'ENERGY', unfreeze_amount: 1_000_000_000, unfreeze_expire_time: expect.any(Number) }]);
    expect((await api('getavailableunfreezecount', { owner_address: hexOf(outside) })).count).toBe(31);
    expect(await api('getcanwithdrawunfreezeamount', { owner_address: hexOf(outside) })).toEqual({});
    expect((await api('gettransactionbyid', { value: unfreeze })).raw_data.contract[0].type).toBe('UnfreezeBalanceV2Contract');
    await sleep(3_200);
    expect(await api('getcanwithdrawunfreezeamount', { owner_address: hexOf(outside) })).toEqual({ amount: 1_000_000_000 });
    const held = await balanceOf(outside);
    const txid = await stake('withdrawexpireunfreeze', { owner_address: hexOf(outside) });
    const withdrawn = await info(txid);
    expect(withdrawn.withdraw_expire_amount).toBe(1_000_000_000);
    expect((await balanceOf(outside)) - held).toBe(1_000_000_000n - BigInt(withdrawn.fee ?? 0));
    expect((await api('getaccount', { address: hexOf(outside) })).unfrozenV2).toBeUndefined();
    const block = await api('getblockbynum', { num: withdrawn.blockNumber });
    expect(block.transactions.map((t: any) => t.raw_data.contract[0].type)).toEqual(['WithdrawExpireUnfreezeContract']);
  });

  it('covers transactions with the 600 free bytes while they last (two TRX transfers), then burns TRX', async () => {
    const payer = TronWeb.address.fromPrivateKey(`${'3'.repeat(63)}4`) as string;
    await tron.tronWeb.trx.sendTrx(payer, Number(10n * TRX));
    await tron.mine();
    const payerWeb = new TronWeb({ fullHost: tron.standin.url, privateKey: `${'3'.repeat(63)}4` });
    const transfer = async () => {
      const tx = await payerWeb.transactionBuilder.sendTrx(outside, 1_000_000, payer);
      const sent = await send(tron.standin.url, tx as unknown as Record<string, unknown>, `${'3'.repeat(63)}4`);
      await tron.mine();
      return info(sent.txid);
    };
    const first = await transfer();
    expect(first.fee).toBeUndefined();
    expect(first.receipt.net_usage).toBeGreaterThan(200);
    expect((await resource(payer)).freeNetUsed).toBe(first.receipt.net_usage);
    const second = await transfer();
    expect(second.fee).toBeUndefined();
    const third = await transfer();
    expect(third.receipt.net_usage).toBeUndefined();
    expect(third.fee).toBe(third.receipt.net_fee);
    expect(third.fee).toBe(first.receipt.net_usage * 1_000);
  });
});

describe('the TRON stand-in over a shortened window', () => {
  it('regenerates energy usage linearly: half after half the window, none after all of it', async () => {
    const short = await startTestTron({ resourceWindowSeconds: 4 });
    try {
      const owner = short.outside;
      const built = await post(short.standin.url, 'freezebalancev2', { owner_address: hexOf(owner), frozen_balance: 100_000_000_000, resource: 'ENERGY' });
      expect((await send(short.standin.url, built, TRON_OUTSIDE_KEY)).result).toBe(true);
      await short.mine();
      await short.sendToken(owner, 1_000_000n); // the mint and the transfer to itself use the stake's energy
      const used = BigInt((await post(short.standin.url, 'getaccountresource', { address: hexOf(owner) })).EnergyUsed);
      expect(used).toBeGreaterThan(60_000n);
      await sleep(2_000);
      const half = BigInt((await post(short.standin.url, 'getaccountresource', { address: hexOf(owner) })).EnergyUsed);
      expect(half).toBeLessThan((used * 60n) / 100n);
      expect(half).toBeGreaterThan((used * 25n) / 100n);
      await sleep(2_200);
      expect((await post(short.standin.url, 'getaccountresource', { address: hexOf(owner) })).EnergyUsed).toBeUndefined();
    } finally {
      await short.stop();
    }
  }, 30_000);
});

describe('the TRON stand-in with a state file', () => {
  it('keeps stakes and delegations across a restart', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'tron-standin-')), 'tron.json');
    const key = TRON_OUTSIDE_KEY;
    const owner = TronWeb.address.fromPrivateKey(key) as string;
    const other = TronWeb.address.fromPrivateKey(RECEIVER_KEY) as string;
    const start = async () => startTronStandin({ port: await freePort(), blockTimeSeconds: null, stateFile });
    const first = await start();
    let frozenTx: string;
    try {
      await rpc(first.anvil.rpcUrl, 'anvil_setBalance', [`0x${hexOf(owner).slice(2)}`, `0x${(1_000n * TRX).toString(16)}`]);
      await rpc(first.anvil.rpcUrl, 'anvil_setBalance', [`0x${hexOf(other).slice(2)}`, `0x${(1_000n * TRX).toString(16)}`]);
      const freeze = await send(first.url, await post(first.url, 'freezebalancev2', { owner_address: hexOf(owner), frozen_balance: 500_000_000, resource: 'ENERGY' }), key);
      expect(freeze.result).toBe(true);
      frozenTx = freeze.txid;
      const delegate = await send(first.url, await post(first.url, 'delegateresource', { owner_address: hexOf(owner), receiver_address: hexOf(other), balance: 200_000_000, resource: 'ENERGY' }), key);
      expect(delegate.result).toBe(true);
    } finally {
      await first.stop();
    }
    const second = await start();
    try {
      expect((await post(second.url, 'getaccount', { address: hexOf(owner) })).frozenV2).toEqual([{ type: 'ENERGY', amount: 300_000_000 }]);
      expect(await post(second.url, 'getdelegatedresourcev2', { fromAddress: hexOf(owner), toAddress: hexOf(other) })).toEqual({
        delegatedResource: [{ from: hexOf(owner), to: hexOf(other), frozen_balance_for_energy: 200_000_000 }],
      });
      expect(BigInt((await post(second.url, 'getaccountresource', { address: hexOf(other) })).EnergyLimit)).toBeGreaterThan(1_900n);
      expect((await post(second.url, 'gettransactionbyid', { value: frozenTx })).raw_data.contract[0].type).toBe('FreezeBalanceV2Contract');
    } finally {
      await second.stop();
    }
  }, 60_000);
});
