// The reconciliation of the books with the chain (issue 30, item 6) on a real
// anvil behind the provider imitation and the real database: where a payout
// was both sent and refunded (as the sending code before issue 30 did on one
// lagging read; here reads that never show the receipt), the run reports the
// deficit, names the withdrawal and holds the network's payouts until an
// operator resumes them; with today's sending, the same payout behind the same
// lagging backend is confirmed once and the run reports no difference.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvmChainPort } from '../../src/adapters/chains/evm-chain.js';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { startProviderImitation, type ProviderImitation } from '../../src/adapters/sandbox/provider-imitation.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { RefillAccountKeys } from '../../src/application/custody/refill-account-keys.js';
import { PayoutHolds } from '../../src/application/ledger/payout-holds.js';
import { CheckLedger } from '../../src/application/ledger/check-ledger.js';
import { ReconcileChain } from '../../src/application/ledger/reconcile-chain.js';
import { TOKENS } from '../../src/application/tokens.js';
import { ProcessTransfers, TransferOutcomes } from '../../src/application/transfers/process-transfers.js';
import { SendWithdrawals } from '../../src/application/withdrawals/send-withdrawals.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { creditDeposit } from '../../src/domain/ledger/entries.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import type { ChainSender } from '../../src/domain/transfers/ports.js';
import { startTestChain, type TestChain } from '../support/anvil-chain.js';
import { TEST_SEED, uniqueCall, useTestApi } from '../support/harness.js';
import { opsEnv, runEntry } from '../support/processes.js';

const t = useTestApi({ workspace: 'reconcile', env: { ETH_TESTNET_CONFIRMATIONS: '2' } });
let chain: TestChain;
let lagging: ProviderImitation;
let port: EvmChainPort;
let treasury: string;
/** The withdrawal paid on chain and refunded in the books (test 2), put right by the operator in test 3. */
let paidAndRefunded: string;
const signer = new LocalHdSigner(TEST_SEED);

function container() {
  const c = t.api.infra.container.createChildContainer();
  c.register(TOKENS.Signer, { useValue: signer });
  c.register(TOKENS.AccountKeyExporter, { useValue: signer });
  c.registerInstance(TransferOutcomes, new TransferOutcomes());
  return c;
}

const tokenBalance = async (owner: string) =>
  BigInt(await rpc<string>(chain.anvil.rpcUrl, 'eth_call', [{ to: chain.tokens[0], data: `0x70a08231${owner.slice(2).toLowerCase().padStart(64, '0')}` }, 'latest']));

/** One withdrawal of 120 USDT_ETH (115 net) to a fresh address, sent by the pipeline through `sender` until it ends. */
async function withdraw(sender: ChainSender, destination: string): Promise<{ id: string; status: string }> {
  const created = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/withdrawals', { chain: 'ETH', asset: 'USDT_ETH', amount: '120', destination_address: destination });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const c = container();
  const withdrawals = c.resolve(SendWithdrawals);
  const pipeline = c.resolve(ProcessTransfers);
  let status = 'PENDING';
  for (let i = 0; i < 20 && status !== 'CONFIRMED' && status !== 'FAILED'; i++) {
    await withdrawals.step(sender, { batch: 10 });
    await pipeline.step(sender, { replaceAfterMs: 600_000, rebroadcastAfterMs: 600_000, batch: 10 });
    await withdrawals.step(sender, { batch: 10 });
    status = (await uniqueCall(t.api.baseUrl, t.ws.testKey, 'GET', `/v2/withdrawals/${id}`)).body.status as string;
    await chain.mine();
  }
  return { id, status };
}

/**
 * A pool whose reads never show the payout's receipt (the reads the sending code before issue 30 took as
 * proof): the pipeline, having no receipt from any URL on steps blocks apart, judges the payout dropped.
 */
function receiptsNeverShown(real: EvmChainPort): ChainSender {
  return new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === 'sentReceipt' || prop === 'sentReceiptOnEveryNode') return async () => null;
      if (prop === 'revertedOnEveryNode') return async () => false;
      if (prop === 'agreedReceipt') return async () => null;
      // ... and that take the transaction at the nonce for another's (the check before issue 30 had none).
      if (prop === 'nonceHolder') return async () => `0x${'ee'.repeat(32)}`;
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as unknown as ChainSender;
}

const reconcile = () => container().resolve(ReconcileChain).execute(port, { holdPayouts: true, windowDays: 7 });

beforeAll(async () => {
  chain = await startTestChain({ chainId: 11155111, decimals: [6] });
  // Receipts from a backend 3 blocks behind; everything else from a fresh one.
  lagging = await startProviderImitation({ kind: 'evm', target: chain.anvil.rpcUrl, behaviours: ['lagging-backend:minLag=3:maxLag=3'], share: 1, onlyFor: ['eth_getTransactionReceipt'] });
  port = new EvmChainPort({ network: 'ETH_TESTNET', urls: [lagging.url], contracts: { USDT_ETH: chain.tokens[0]! }, chainId: 11155111, retryDelayMs: 10, retryCount: 2 });
  await container().resolve(RefillAccountKeys).execute({});
  treasury = await signer.deriveAddress('ETH', servicePath('ETH_TESTNET', 'treasury'));
  const gasTank = await signer.deriveAddress('ETH', servicePath('ETH_TESTNET', 'gasTank'));
  for (const a of [treasury, gasTank]) await rpc(chain.anvil.rpcUrl, 'anvil_setBalance', [a, `0x${(10n ** 20n).toString(16)}`]);
  // The books and the chain agree: 500 USDT_ETH credited to the workspace, and 500 in the treasury.
  await t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork).run((tx) =>
    tx.ledger.post(
      creditDeposit({
        id: crypto.randomUUID(),
        network: 'ETH_TESTNET',
        at: new Date(),
        depositId: crypto.randomUUID(),
        workspaceId: t.ws.workspaceId,
        gross: Amount.parse('500', 'USDT_ETH'),
        fee: Amount.zero('USDT_ETH'),
      }),
    ),
  );
  await chain.sendToken(chain.tokens[0]!, treasury, 500_000_000n);
  await chain.mine(3);
}, 60_000);

afterAll(async () => {
  await lagging?.close();
  await chain?.stop();
});

describe('the reconciliation of the books with the chain', () => {
  it('agrees with the books when nothing is wrong (native currency funded outside the books is a surplus, not a difference)', async () => {
    const report = await reconcile();
    expect(report.ok).toBe(true);
    expect(report.assets.find((a) => a.asset === 'USDT_ETH')).toMatchObject({ verdict: 'ok', expected: 500_000_000n, onChain: 500_000_000n });
    expect(report.assets.find((a) => a.asset === 'ETH')!.verdict).toBe('surplus');
    expect(report.held).toBeNull();
  });

  it('reports a payout both sent and refunded, names the withdrawal, and holds the payouts until an operator resumes them', async () => {
    const destination = getAddress('0xb0b1b0b1b0b1b0b1b0b1b0b1b0b1b0b1b0b1b0b1');
    const paid = await withdraw(receiptsNeverShown(port), destination);
    // Paid on chain, and FAILED and refunded in the books: what the sending code before issue 30 did on one lagging read.
    expect(paid.status).toBe('FAILED');
    paidAndRefunded = paid.id;
    expect(await tokenBalance(destination)).toBe(115_000_000n);
    await chain.mine(3);

    const report = await reconcile();
    expect(report.ok).toBe(false);
    expect(report.assets.find((a) => a.asset === 'USDT_ETH')).toMatchObject({ verdict: 'deficit', difference: -115_000_000n });
    expect(report.involved).toEqual([expect.objectContaining({ kind: 'withdrawal', id: paid.id, asset: 'USDT_ETH', amount: 115_000_000n })]);
    expect(report.held).toMatch(new RegExp(`withdrawal ${paid.id}`));

    // Held: a new withdrawal waits (PENDING), nothing is sent, until the operator resumes the network's payouts.
    const c = container();
    const step = await c.resolve(SendWithdrawals).step(port, { batch: 10 });
    expect(step.held).toBe(true);
    expect(await c.resolve(PayoutHolds).resume('ETH_TESTNET')).toBe(true);
    expect(await c.resolve(PayoutHolds).list()).toEqual([]);
    // What the operator looked at does not hold the payouts again (the window still finds it, acknowledged).
    await chain.mine(2);
    const again = await reconcile();
    expect(again.involved).toEqual([expect.objectContaining({ kind: 'withdrawal', id: paid.id, acknowledged: true })]);
    expect(again.held).toBeNull();
    expect(await c.resolve(PayoutHolds).list()).toEqual([]);
  });

  it('with today’s sending, the same payout behind the same lagging backend is confirmed once and the next run finds nothing new', async () => {
    // The operator puts the refunded payout above right: proved paid on chain, its refund is taken back.
    const available = async () => ((await uniqueCall(t.api.baseUrl, t.ws.testKey, 'GET', '/v2/balances?asset=USDT_ETH')).body.data as { available: string }[])[0]!.available;
    const before = await available();
    const ops = opsEnv(t.db.url, { MASTER_SEED: TEST_SEED, DATA_DIR: mkdtempSync(join(tmpdir(), 'reconcile-')), ETH_TESTNET_RPC_URL: lagging.url, ETH_TESTNET_CONFIRMATIONS: '2', ETH_TESTNET_USDT_ETH_CONTRACT: getAddress(chain.tokens[0]!) });
    const fixed = await runEntry('src/bootstrap/ops.ts', ops, ['withdrawal', 'paid', '--id', paidAndRefunded, '--json']);
    expect(fixed.code).toBe(0);
    expect(JSON.parse(fixed.stdout)).toMatchObject({ id: paidAndRefunded, status: 'FAILED', refund_taken_back: { from_available: '120.000000', to_receivable: '0.000000' } });
    expect(Number(before) - Number(await available())).toBe(120);
    // Once only; and never for a withdrawal that is not FAILED and refunded.
    const twice = await runEntry('src/bootstrap/ops.ts', ops, ['withdrawal', 'paid', '--id', paidAndRefunded, '--json']);
    expect([twice.code, JSON.parse(twice.stdout)]).toEqual([2, expect.objectContaining({ error: expect.stringMatching(/taken back already/) })]);
    expect(await container().resolve(CheckLedger).execute()).toMatchObject({ ok: true });
    await chain.mine(3);
    const destination = getAddress('0xb0b2b0b2b0b2b0b2b0b2b0b2b0b2b0b2b0b2b0b2');
    const paid = await withdraw(port, destination);
    expect(paid.status).toBe('CONFIRMED');
    const notFailed = await runEntry('src/bootstrap/ops.ts', ops, ['withdrawal', 'paid', '--id', paid.id, '--json']);
    expect([notFailed.code, JSON.parse(notFailed.stdout)]).toEqual([2, expect.objectContaining({ error: expect.stringMatching(/is CONFIRMED/) })]);
    expect(await tokenBalance(destination)).toBe(115_000_000n);
    await chain.mine(3);
    const report = await reconcile();
    expect(report.involved).toEqual([]);
    expect(report.assets.find((a) => a.asset === 'USDT_ETH')).toMatchObject({ verdict: 'ok', difference: 0n });
    expect(report.ok).toBe(true);
  });

  it('checks each deposit address on its own: a shortfall there is a deficit although a surplus elsewhere nets the totals; a wallet holding funds with no deposit recorded is named', async () => {
    const wallet = async () => {
      const res = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'USDT_ETH' });
      expect(res.status).toBe(201);
      return { id: res.body.id as string, address: res.body.address as string };
    };
    const w = await wallet();
    const txid = await chain.sendToken(chain.tokens[0]!, w.address, 30_000_000n);
    await chain.mine();
    const head = BigInt(await rpc<string>(chain.anvil.rpcUrl, 'eth_blockNumber', []));
    const now = new Date();
    const uow = t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const depositId = crypto.randomUUID();
    await uow.run(async (tx) => {
      const [d] = await tx.deposits.record([
        {
          id: depositId, workspaceId: t.ws.workspaceId, walletId: w.id, customerId: null, network: 'ETH_TESTNET', asset: 'USDT_ETH',
          txid, logIndex: 0, fromAddress: getAddress(`0x${'ab'.repeat(20)}`), toAddress: w.address,
          chainAmount: 30_000_000n, amount: 30_000_000n, blockNumber: head, blockHash: `0x${'3d'.repeat(32)}`, status: 'DETECTED',
          confirmations: 1, requiredConfirmations: 2, fee: null, detectedAt: now, confirmedAt: null, sweptAt: null, updatedAt: now,
        },
      ]);
      await tx.deposits.update({ ...d!, status: 'CONFIRMED', confirmations: 2, confirmedAt: now });
      await tx.ledger.post(creditDeposit({ id: crypto.randomUUID(), network: 'ETH_TESTNET', at: now, depositId, workspaceId: t.ws.workspaceId, gross: Amount.parse('30', 'USDT_ETH'), fee: Amount.zero('USDT_ETH') }));
    });
    await chain.mine(3);
    expect((await reconcile()).assets.find((a) => a.asset === 'USDT_ETH')).toMatchObject({ verdict: 'ok', difference: 0n });

    // The deposit address is emptied, and the same amount reaches the treasury from outside: the totals agree.
    const transfer = (to: string, amount: bigint) => `0xa9059cbb${to.slice(2).toLowerCase().padStart(64, '0')}${amount.toString(16).padStart(64, '0')}`;
    await rpc(chain.anvil.rpcUrl, 'anvil_impersonateAccount', [w.address]);
    await rpc(chain.anvil.rpcUrl, 'anvil_setBalance', [w.address, `0x${(10n ** 18n).toString(16)}`]);
    await rpc(chain.anvil.rpcUrl, 'eth_sendTransaction', [{ from: w.address, to: chain.tokens[0], data: transfer(`0x${'77'.repeat(20)}`, 30_000_000n), gas: '0x30000' }]);
    await chain.sendToken(chain.tokens[0]!, treasury, 30_000_000n);
    // And a fresh wallet receives 7 USDT the books never heard of.
    const quiet = await wallet();
    await chain.sendToken(chain.tokens[0]!, quiet.address, 7_000_000n);
    await chain.mine(3);
    const report = await reconcile();
    expect(report.assets.find((a) => a.asset === 'USDT_ETH')).toMatchObject({ verdict: 'deficit', difference: 0n });
    expect(report.involved).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'address', id: w.address, asset: 'USDT_ETH', amount: 30_000_000n }),
        expect.objectContaining({ kind: 'unbooked', id: quiet.address, asset: 'USDT_ETH', amount: 7_000_000n }),
      ]),
    );
    expect(report.ok).toBe(false);
    expect(report.held).toBeNull(); // a deficit holds from its second run
    expect((await reconcile()).held).toMatch(new RegExp(`USDT_ETH at ${w.address}`));
    expect(await container().resolve(PayoutHolds).resume('ETH_TESTNET')).toBe(true);

    // Put right: the deposit address holds its deposit again, the treasury what the books say.
    await rpc(chain.anvil.rpcUrl, 'anvil_impersonateAccount', [treasury]);
    await rpc(chain.anvil.rpcUrl, 'eth_sendTransaction', [{ from: treasury, to: chain.tokens[0], data: transfer(`0x${'77'.repeat(20)}`, 30_000_000n), gas: '0x30000' }]);
    await chain.sendToken(chain.tokens[0]!, w.address, 30_000_000n);
    await chain.mine(3);
    const fixed = await reconcile();
    expect(fixed.assets.find((a) => a.asset === 'USDT_ETH')).toMatchObject({ verdict: 'ok', difference: 0n });
    expect(fixed.involved.map((i) => i.kind)).toEqual(['unbooked']);
    expect(fixed.ok).toBe(true);
  });

  it('is the operator’s command too: ops ledger reconcile (exit 1 on a deficit) and ops payouts holds | resume', async () => {
    const env = opsEnv(t.db.url, {
      MASTER_SEED: TEST_SEED,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'reconcile-')),
      ETH_TESTNET_RPC_URL: lagging.url,
      ETH_TESTNET_CONFIRMATIONS: '2',
      ETH_TESTNET_USDT_ETH_CONTRACT: getAddress(chain.tokens[0]!),
    });
    const agreed = await runEntry('src/bootstrap/ops.ts', env, ['ledger', 'reconcile', '--chain', 'ETH_TESTNET', '--json']);
    expect(agreed.code).toBe(0);
    const report = JSON.parse(agreed.stdout) as { ok: boolean; networks: { network: string; assets: { asset: string; verdict: string }[] }[] };
    expect(report.ok).toBe(true);
    expect(report.networks[0]!.assets.find((a) => a.asset === 'USDT_ETH')!.verdict).toBe('ok');

    // 10 USDT_ETH leave the treasury outside the books: a deficit, exit 1, and one line per asset for a person.
    await rpc(chain.anvil.rpcUrl, 'anvil_impersonateAccount', [treasury]);
    await rpc(chain.anvil.rpcUrl, 'eth_sendTransaction', [
      { from: treasury, to: chain.tokens[0], data: `0xa9059cbb${'00'.repeat(12)}${'99'.repeat(20)}${(10_000_000n).toString(16).padStart(64, '0')}`, gas: '0x30000' },
    ]);
    await chain.mine(4);
    const short = await runEntry('src/bootstrap/ops.ts', env, ['ledger', 'reconcile', '--chain', 'ETH_TESTNET']);
    expect(short.code).toBe(1);
    expect(short.stdout).toMatch(/ETH_TESTNET at block \d+: DIFFERENCE/);
    expect(short.stdout).toMatch(/USDT_ETH .*deficit -10000000/);
    // A second run with the deficit still there holds the payouts; the operator looks and resumes them.
    await runEntry('src/bootstrap/ops.ts', env, ['ledger', 'reconcile', '--chain', 'ETH_TESTNET']);
    const holds = await runEntry('src/bootstrap/ops.ts', env, ['payouts', 'holds', '--json']);
    expect((JSON.parse(holds.stdout) as { holds: { network: string; reason: string }[] }).holds).toEqual([
      expect.objectContaining({ network: 'ETH_TESTNET', reason: expect.stringMatching(/two runs: USDT_ETH -10000000/) }),
    ]);
    const resumed = await runEntry('src/bootstrap/ops.ts', env, ['payouts', 'resume', '--chain', 'ETH_TESTNET']);
    expect([resumed.code, resumed.stdout.trim()]).toEqual([0, 'ETH_TESTNET: payouts resume.']);
    // The deficit the operator looked at holds nothing again; a deeper one does (after two runs).
    const heldNow = async () => (JSON.parse((await runEntry('src/bootstrap/ops.ts', env, ['payouts', 'holds', '--json'])).stdout) as { holds: unknown[] }).holds;
    await runEntry('src/bootstrap/ops.ts', env, ['ledger', 'reconcile', '--chain', 'ETH_TESTNET']);
    const acked = await runEntry('src/bootstrap/ops.ts', env, ['ledger', 'reconcile', '--chain', 'ETH_TESTNET', '--json']);
    const ackedRow = (JSON.parse(acked.stdout) as { networks: { assets: { asset: string; verdict: string; acknowledged: boolean }[] }[] }).networks[0]!.assets.find((a) => a.asset === 'USDT_ETH');
    expect(ackedRow).toMatchObject({ verdict: 'deficit', acknowledged: true });
    expect(await heldNow()).toEqual([]);
    await rpc(chain.anvil.rpcUrl, 'eth_sendTransaction', [
      { from: treasury, to: chain.tokens[0], data: `0xa9059cbb${'00'.repeat(12)}${'99'.repeat(20)}${(1_000_000n).toString(16).padStart(64, '0')}`, gas: '0x30000' },
    ]);
    await chain.mine(4);
    await runEntry('src/bootstrap/ops.ts', env, ['ledger', 'reconcile', '--chain', 'ETH_TESTNET']);
    await runEntry('src/bootstrap/ops.ts', env, ['ledger', 'reconcile', '--chain', 'ETH_TESTNET']);
    expect(await heldNow()).toEqual([expect.objectContaining({ network: 'ETH_TESTNET', reason: expect.stringMatching(/USDT_ETH -11000000/) })]);
  }, 90_000);
});
