// ops energy (issue 34, ADR 0035) against the real database and the TRON
// stand-in: the energy source per network (burn by default), staking and
// unstaking the energy account's TRX through the one pipeline, and its
// status read from the chain; bad input refused with exit 2, changing
// nothing; what the account cannot afford refused before anything is asked.
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { ENERGY_COMMANDS } from '../../src/adapters/cli/energy-commands.js';
import { runOps } from '../../src/adapters/cli/run-ops.js';
import { TronChainPort } from '../../src/adapters/chains/tron-chain.js';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { ProcessTransfers, TransferOutcomes } from '../../src/application/transfers/process-transfers.js';
import { TOKENS } from '../../src/application/tokens.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { energyOfStake } from '../../src/domain/energy/resources.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { TEST_SEED, useTestApi } from '../support/harness.js';
import { opsEnv, runEntry } from '../support/processes.js';
import { startTestTron, type TestTron } from '../support/tron-chain.js';

const TRX = 1_000_000n;
const t = useTestApi({ workspace: 'energy-ops' });
let tron: TestTron;
let port: TronChainPort;
let energy: string;

function container() {
  const c = t.api.infra.container.createChildContainer();
  c.register(TOKENS.Signer, { useValue: new LocalHdSigner(TEST_SEED) });
  c.register(TOKENS.BalanceReaders, { useValue: [port] });
  c.registerInstance(TransferOutcomes, new TransferOutcomes());
  return c;
}

async function ops(...args: string[]): Promise<{ code: number; json: Record<string, unknown>; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const c = container();
  const code = await runOps(ENERGY_COMMANDS, [...args, '--json'], { resolve: (tok) => c.resolve(tok) }, { out: (x) => out.push(x), err: (x) => err.push(x) });
  return { code, json: out.length ? (JSON.parse(out.join('')) as Record<string, unknown>) : {}, err: err.join('') };
}

/** The chain-worker's part: the pipeline carries the energy account's transfers until none is open. */
async function chainWorker() {
  const c = container();
  const pipeline = c.resolve(ProcessTransfers);
  const uow = c.resolve<UnitOfWork>(TOKENS.UnitOfWork);
  for (let i = 0; i < 15; i++) {
    await pipeline.step(port, { replaceAfterMs: 60_000, rebroadcastAfterMs: 0, batch: 10 });
    const open = await uow.run((tx) => tx.transfers.openOfKinds('TRON_TESTNET', energy, ['ENERGY_STAKE', 'ENERGY_UNSTAKE', 'ENERGY_WITHDRAW']));
    if (open.length === 0) return;
    await tron.mine();
  }
  throw new Error('the energy account’s transfers did not end');
}

beforeAll(async () => {
  tron = await startTestTron({ unfreezeDelaySeconds: 1 });
  port = new TronChainPort({ network: 'TRON_TESTNET', urls: [tron.standin.url], contracts: { USDT_TRON: tron.token }, retryDelayMs: 10, retryCount: 1 });
  energy = await new LocalHdSigner(TEST_SEED).deriveAddress('TRON', servicePath('TRON_TESTNET', 'energy'));
});
afterAll(async () => {
  await tron?.stop();
});

describe('ops energy policy', () => {
  it('burns by default, and takes the stake as the source with a margin and a longest wait', async () => {
    expect(await ops('energy', 'policy', 'show')).toMatchObject({
      code: 0,
      json: { policies: [expect.objectContaining({ chain: 'TRON_MAINNET', source: 'burn', configured: false }), expect.objectContaining({ chain: 'TRON_TESTNET', source: 'burn', margin_percent: 10, max_wait_seconds: 120, configured: false })] },
    });
    const set = await ops('energy', 'policy', 'set', '--network', 'TRON_TESTNET', '--source', 'stake', '--margin-percent', '15');
    expect(set).toMatchObject({ code: 0, json: { chain: 'TRON_TESTNET', source: 'stake', margin_percent: 15, max_wait_seconds: 120, configured: true } });
    // The bare chain names its testnet here, in any case.
    const again = await ops('energy', 'policy', 'set', '--network', 'tron', '--source', 'stake', '--max-wait-seconds', '90');
    expect(again.json).toMatchObject({ chain: 'TRON_TESTNET', margin_percent: 15, max_wait_seconds: 90 });
  });

  it('refuses bad input with VALIDATION_ERROR and exit 2, changing nothing', async () => {
    const before = (await ops('energy', 'policy', 'show')).json;
    const said = new Map<string, string>();
    for (const args of [
      ['energy', 'policy', 'set', '--network', 'ETH_TESTNET', '--source', 'stake'],
      ['energy', 'policy', 'set', '--network', 'TRON_TESTNET', '--source', 'stake', '--max-wait-seconds', '59'], // a loan lands after 19 blocks
      ['energy', 'policy', 'frob'],
      ['energy', 'policy', 'set', '--network', 'TRON_TESTNET', '--source', 'rent'],
      ['energy', 'policy', 'set', '--network', 'TRON_TESTNET'],
      ['energy', 'policy', 'set', '--source', 'stake'],
      ['energy', 'policy', 'set', '--network', 'TRON_TESTNET', '--source', 'stake', '--margin-percent', '101'],
      ['energy', 'policy', 'set', '--network', 'TRON_TESTNET', '--source', 'stake', '--max-wait-seconds', '-1'],
      ['energy', 'policy', 'set', '--network', 'TRON_TESTNET', '--source', 'stake', '--max-wait-seconds', '5'], // a loan takes blocks
      ['energy', 'withdraw', '--network', 'ETH_TESTNET'],
      ['energy', 'policy', 'set', '--network', 'TRON_TESTNET', '--chain', 'TRON_TESTNET', '--source', 'stake'], // --network, not --chain
      ['energy', 'policy', 'set', '--network', 'NOWHERE', '--source', 'stake'],
      ['energy', 'stake', '--network', 'TRON_TESTNET', '--trx', '0'],
      ['energy', 'stake', '--network', 'TRON_TESTNET', '--trx', '1.5'],
      ['energy', 'stake', '--network', 'TRON_TESTNET'],
      ['energy', 'unstake', '--network', 'BSC_TESTNET', '--trx', '5'],
    ]) {
      const res = await ops(...args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.json.code, args.join(' ')).toBe('VALIDATION_ERROR');
      said.set(args.join(' '), JSON.stringify(res.json));
    }
    // Said in the operator's words: what is wrong, and what is right.
    expect(said.get('energy policy set --network TRON_TESTNET --source rent')).toMatch(/--source: burn or stake"/);
    expect(said.get('energy policy set --network TRON_TESTNET')).toMatch(/--source is required.*burn or stake/);
    expect(said.get('energy policy set --network TRON_TESTNET --source stake --max-wait-seconds 59')).toMatch(/60 to 3600/);
    expect(said.get('energy policy frob')).toMatch(/energy policy set or energy policy show/);
    expect((await ops('energy', 'policy', 'show')).json).toEqual(before);
  });
});

describe('ops energy stake, unstake and status', () => {
  it('stakes through the pipeline what the energy account holds, and its status reads the chain', async () => {
    const cold = await ops('energy', 'status', '--network', 'TRON_TESTNET');
    expect(cold.json.networks).toEqual([expect.objectContaining({ chain: 'TRON_TESTNET', energy_account: energy, activated: false, staked_trx: '0', energy_limit: '0' })]);
    // Nothing to stake with: refused before anything is requested.
    const refused = await ops('energy', 'stake', '--network', 'TRON_TESTNET', '--trx', '10000');
    expect(refused.code).toBe(2); // a refusal of the request, as every ops command's
    expect(refused.json).toMatchObject({ code: 'UNPROCESSABLE' });
    expect(String(refused.json.error)).toMatch(/send TRX to it first/);

    const hex = `0x${tron.tronWeb.address.toHex(energy).slice(2)}`;
    await rpc(tron.standin.anvil.rpcUrl, 'anvil_setBalance', [hex, `0x${(50_000n * TRX).toString(16)}`]);
    await tron.mine();
    const staked = await ops('energy', 'stake', '--network', 'TRON_TESTNET', '--trx', '40000');
    expect(staked).toMatchObject({ code: 0, json: { chain: 'TRON_TESTNET', kind: 'ENERGY_STAKE', trx: '40000', status: 'REQUESTED' } });
    // A second stake may not spend what the first already took from the balance.
    expect((await ops('energy', 'stake', '--network', 'TRON_TESTNET', '--trx', '10000')).json).toMatchObject({ code: 'UNPROCESSABLE' });
    const pending = (await ops('energy', 'status', '--network', 'TRON_TESTNET')).json.networks as { transfers_open: { kind: string; status: string }[] }[];
    expect(pending[0]!.transfers_open).toEqual([expect.objectContaining({ kind: 'ENERGY_STAKE', status: 'REQUESTED' })]);
    await chainWorker();
    const [after] = (await ops('energy', 'status', '--network', 'TRON_TESTNET')).json.networks as Record<string, unknown>[];
    expect(after).toMatchObject({ activated: true, staked_trx: '40000', delegated_trx: '0', lendable_trx: '40000', transfers_open: [], loans_open: 0 });
    // The network's weight now counts this stake: the limit is its share, as java-tron computes it.
    expect(BigInt(after!.energy_limit as string)).toBe(energyOfStake(40_000n * TRX, (await port.resources(energy))!));
    expect((await port.stake(energy))!.staked).toBe(40_000n * TRX);
  });

  it('unstakes only what is free, and the status shows it unstaking', async () => {
    expect((await ops('energy', 'unstake', '--network', 'TRON_TESTNET', '--trx', '40001')).json).toMatchObject({ code: 'UNPROCESSABLE' });
    const asked = await ops('energy', 'unstake', '--network', 'TRON_TESTNET', '--trx', '5000');
    expect(asked).toMatchObject({ code: 0, json: { kind: 'ENERGY_UNSTAKE', trx: '5000' } });
    await chainWorker();
    const [after] = (await ops('energy', 'status')).json.networks as Record<string, unknown>[];
    expect(after).toMatchObject({ chain: 'TRON_MAINNET', node: false, activated: false }); // no node for the mainnet here
    const [testnet] = ((await ops('energy', 'status', '--network', 'TRON_TESTNET')).json.networks as Record<string, unknown>[]);
    expect(testnet).toMatchObject({ node: true, staked_trx: '35000', stake_trx: '35000' });
    expect(['5000', '0']).toContain(testnet!.unstaking_trx); // one second of delay: waiting, or already withdrawable
    expect(Number(testnet!.unstaking_trx) + Number(testnet!.withdrawable_trx)).toBe(5000);
    // While it waits, when it can be withdrawn.
    if (testnet!.unstaking_trx === '5000') expect(Date.parse(String(testnet!.next_withdrawable_at))).toBeGreaterThan(Date.now() - 5_000);
    else expect(testnet!.next_withdrawable_at).toBeNull();
  });

  it('withdraws unstaked TRX once its delay has passed, once', async () => {
    await new Promise((r) => setTimeout(r, 1200)); // the stand-in's delay here: one second
    const before = (await port.stake(energy))!.balance;
    const asked = await ops('energy', 'withdraw', '--network', 'TRON_TESTNET');
    expect(asked).toMatchObject({ code: 0, json: { kind: 'ENERGY_WITHDRAW', trx: '5000', status: 'REQUESTED' } });
    expect((await ops('energy', 'withdraw', '--network', 'TRON_TESTNET')).json).toMatchObject({ code: 'CONFLICT' });
    await chainWorker();
    const after = (await port.stake(energy))!;
    expect(after.unfreezing).toEqual([]);
    expect(after.balance).toBeGreaterThan(before + 4_999n * TRX); // less at most its bytes
    const nothing = await ops('energy', 'withdraw', '--network', 'TRON_TESTNET');
    expect(nothing).toMatchObject({ code: 2, json: { code: 'UNPROCESSABLE' } });
  });

  it('answers --help and a human line without --json as a process', async () => {
    const help = await runEntry('src/bootstrap/ops.ts', opsEnv(t.db.url), ['energy', 'stake', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout + help.stderr).toMatch(/energy stake --network TRON_TESTNET --trx 10000/);
    const shown = await runEntry('src/bootstrap/ops.ts', opsEnv(t.db.url), ['energy', 'policy', 'show', '--network', 'TRON_TESTNET']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/TRON_TESTNET: energy from the stake \(burning when short\), margin 15 %, longest wait 90 s/);
    // A network without a node says so, rather than showing balances nobody read.
    const status = await runEntry('src/bootstrap/ops.ts', opsEnv(t.db.url), ['energy', 'status', '--network', 'TRON_MAINNET']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/TRON_MAINNET energy account T\w+ \(no node is configured for TRON_MAINNET: nothing read from the chain\)/);
  });
});
