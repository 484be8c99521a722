// Sweep figures for `npm run bench`, each next to a baseline from the same run
// on the same node:
// - gas per swept token deposit (the top-up and the sweep transaction, gas
//   units from the receipts) next to the physical minimum: one ERC-20
//   transfer of the same amount plus one plain 21,000-gas top-up, sent by
//   viem alone;
// - sweeps per minute for 200 funded USDT addresses on a local anvil
//   (automine), from the first sweep step to every deposit SWEPT, through the
//   real pipeline (sweep rows, top-ups from the gas tank, nonces, signed bytes
//   recorded, receipts, confirmations), next to viem alone sending the same
//   400 transactions (200 top-ups, then 200 token transfers) from local
//   accounts and waiting for their receipts.
// TRON sweeps: bench/tron-sweeps.ts.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createWalletClient, encodeFunctionData, erc20Abi, http, parseAbi, type Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { rpc } from '../src/adapters/sandbox/anvil.js';
import { openInfrastructure } from '../src/bootstrap/infrastructure.js';
import type { Config } from '../src/bootstrap/config.js';
import { rpcBatch } from './deposits.js';
import type { BenchRow } from './webhooks.js';

const ADDRESSES = 200;
const AMOUNT = 60_000_000n; // 60 USDT: over the 50 USDT minimum
const MINT = parseAbi(['function mint(address to, uint256 value) returns (bool)']);
const DEV = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'; // anvil's unlocked account #0

/** Sends the calls in JSON-RPC batches with mining paused, then mines until every one is in a block. */
async function stageMined(url: string, calls: { method: string; params: unknown[] }[]): Promise<void> {
  await rpc(url, 'evm_setAutomine', [false]);
  for (let i = 0; i < calls.length; i += 200) await rpcBatch(url, calls.slice(i, i + 200));
  for (;;) {
    await rpc(url, 'evm_mine');
    const pool = await rpc<{ pending: string; queued: string }>(url, 'txpool_status');
    if (BigInt(pool.pending) === 0n && BigInt(pool.queued) === 0n) break;
  }
  await rpc(url, 'evm_setAutomine', [true]);
}

const gasUsed = async (url: string, txid: string) => BigInt((await rpc<{ gasUsed: string }>(url, 'eth_getTransactionReceipt', [txid])).gasUsed);

export async function benchSweeps(config: Config, seed: string, log: (line: string) => void): Promise<BenchRow[]> {
  const { startAnvil } = await import('../src/adapters/sandbox/anvil.js');
  const { freePort } = await import('../src/adapters/sandbox/local-ports.js');
  const { deploySandboxTokens } = await import('../src/adapters/sandbox/contracts/sandbox-token.js');
  const { EvmChainPort } = await import('../src/adapters/chains/evm-chain.js');
  const { RunSweeps } = await import('../src/application/sweeps/run-sweeps.js');
  const { ProcessTransfers, TransferOutcomes } = await import('../src/application/transfers/process-transfers.js');
  const { LocalHdSigner } = await import('../src/adapters/signer/hd-signer.js');
  const { depositPath, servicePath, formatPath } = await import('../src/domain/custody/derivation.js');
  const anvil = await startAnvil({ port: await freePort(), chainId: 11155111, args: ['--gas-limit', '100000000'] });
  const client = new pg.Client({ connectionString: config.databaseUrl });
  await client.connect();
  const settings: Config = {
    ...config,
    ports: { ...config.ports, api: 0, chainWorker: 0, dispatcher: 0 },
    networks: config.networks.map((n) => (n.network === 'ETH_TESTNET' ? { ...n, requiredConfirmations: 1 } : n)),
  };
  const infra = await openInfrastructure(settings, { processName: 'bench', runsWorkers: false, seed: 'required' });
  try {
    const [usdt] = await deploySandboxTokens(anvil.rpcUrl, [
      { name: 'Tether USD', symbol: 'USDT', decimals: 6 },
      { name: 'USD Coin', symbol: 'USDC', decimals: 6 },
      { name: 'Euro Coin', symbol: 'EURC', decimals: 6 },
    ]);
    const signer = new LocalHdSigner(seed);
    const gasTank = await signer.deriveAddress('ETH', servicePath('ETH_TESTNET', 'gasTank'));
    await rpc(anvil.rpcUrl, 'anvil_setBalance', [gasTank, `0x${(10n ** 24n).toString(16)}`]);

    // ADDRESSES USDT_ETH wallets of one workspace, each holding 60 USDT on chain and one CONFIRMED deposit of it.
    const workspaceId = randomUUID();
    await client.query(`insert into workspaces (id, name, status, created_at, updated_at) values ($1, 'sweep-bench', 'ACTIVE', now(), now())`, [workspaceId]);
    const { rows } = await client.query<{ account: number }>(
      `insert into hd_accounts (workspace_id, network, next_index) values ($1, 'ETH_TESTNET', $2) returning account`,
      [workspaceId, ADDRESSES],
    );
    const account = rows[0]!.account;
    const addresses: string[] = [];
    for (let i = 0; i < ADDRESSES; i++) addresses.push(await signer.deriveAddress('ETH', depositPath('ETH', account, i)));
    await client.query(
      `insert into wallets (id, workspace_id, network, asset, address, derivation_account, derivation_index, status, created_at)
       select gen_random_uuid(), $1, 'ETH_TESTNET', 'USDT_ETH', a, $2, i - 1, 'ACTIVE', now() from unnest($3::text[]) with ordinality as t(a, i)`,
      [workspaceId, account, addresses],
    );
    await client.query(
      `insert into deposits (id, workspace_id, wallet_id, network, asset, txid, log_index, from_address, to_address, chain_amount, amount,
         block_number, block_hash, status, confirmations, required_confirmations, fee_amount, net_amount, applied_rate_ppm, applied_min_fee,
         detected_at, confirmed_at, created_at, updated_at)
       select gen_random_uuid(), w.workspace_id, w.id, 'ETH_TESTNET', 'USDT_ETH', '0x' || md5(w.id::text) || md5(w.address), 0, $2, w.address, $3::numeric, $3::numeric,
         1, '0x00', 'CONFIRMED', 1, 1, 3000000, $3::numeric - 3000000, 9000, 3000000, now(), now(), now(), now()
       from wallets w where w.workspace_id = $1`,
      [workspaceId, DEV, AMOUNT.toString()],
    );
    let nonce = Number(BigInt(await rpc<string>(anvil.rpcUrl, 'eth_getTransactionCount', [DEV, 'latest'])));
    await stageMined(
      anvil.rpcUrl,
      addresses.map((a) => ({
        method: 'eth_sendTransaction',
        params: [{ from: DEV, to: usdt, data: encodeFunctionData({ abi: MINT, functionName: 'mint', args: [a as Hex, AMOUNT] }), gas: '0x186a0', nonce: `0x${(nonce++).toString(16)}` }],
      })),
    );
    log(`sweep bench: ${ADDRESSES} addresses hold ${AMOUNT / 1_000_000n} USDT each`);

    // The pipeline, as the chain-worker runs it: a sweep step and a transfer step per loop.
    infra.container.registerInstance(TransferOutcomes, new TransferOutcomes());
    const sweeps = infra.container.resolve(RunSweeps);
    const transfers = infra.container.resolve(ProcessTransfers);
    const port = new EvmChainPort({ network: 'ETH_TESTNET', urls: [anvil.rpcUrl], contracts: { USDT_ETH: usdt! } });
    const swept = async () => Number((await client.query<{ n: string }>(`select count(*)::text as n from deposits where workspace_id = $1 and status = 'SWEPT'`, [workspaceId])).rows[0]!.n);
    const t0 = performance.now();
    let steps = 0;
    let lastLog = t0;
    while ((await swept()) < ADDRESSES) {
      await sweeps.step(port, { batch: 200, concurrency: config.sending.concurrency });
      await transfers.step(port, { replaceAfterMs: 600_000, rebroadcastAfterMs: 60_000, batch: 500, concurrency: config.sending.concurrency });
      steps++;
      if (performance.now() - lastLog > 10_000) {
        lastLog = performance.now();
        log(`  … ${await swept()} of ${ADDRESSES} swept after ${((lastLog - t0) / 1000).toFixed(0)} s`);
      }
      if (performance.now() - t0 > 900_000) throw new Error('sweep bench: not all swept in 15 minutes');
    }
    const pipelineSeconds = (performance.now() - t0) / 1000;
    const pipelinePerMin = (ADDRESSES / pipelineSeconds) * 60;
    log(`pipeline: ${ADDRESSES} sweeps (with top-ups) in ${pipelineSeconds.toFixed(1)} s over ${steps} steps: ${pipelinePerMin.toFixed(0)} sweeps/min`);

    // Gas per swept deposit, from the receipts of every top-up and sweep.
    const txs = await client.query<{ kind: string; included_txid: string }>(
      `select t.kind, t.included_txid from outgoing_transfers t join sweeps s on s.id = t.owner_id where s.wallet_id in (select id from wallets where workspace_id = $1)`,
      [workspaceId],
    );
    let pipelineGas = 0n;
    for (const t of txs.rows) pipelineGas += await gasUsed(anvil.rpcUrl, t.included_txid);
    const gasPerSweep = Number(pipelineGas) / ADDRESSES;

    // Baseline: viem alone, the same 2,000 transactions from local accounts (keys from the same seed), on fresh addresses.
    const baseAccount = account + 1;
    const locals = Array.from({ length: ADDRESSES }, (_, i) => mnemonicToAccount(seed, { path: formatPath(depositPath('ETH', baseAccount, i)) as `m/44'/60'/${string}` }));
    nonce = Number(BigInt(await rpc<string>(anvil.rpcUrl, 'eth_getTransactionCount', [DEV, 'latest'])));
    await stageMined(
      anvil.rpcUrl,
      locals.map((a) => ({
        method: 'eth_sendTransaction',
        params: [{ from: DEV, to: usdt, data: encodeFunctionData({ abi: MINT, functionName: 'mint', args: [a.address, AMOUNT] }), gas: '0x186a0', nonce: `0x${(nonce++).toString(16)}` }],
      })),
    );
    const chain = { id: 11155111, name: 'bench', nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [anvil.rpcUrl] } } };
    const tank = mnemonicToAccount(seed, { path: formatPath(servicePath('ETH_TESTNET', 'gasTank')) as `m/44'/60'/${string}` });
    const treasury = await signer.deriveAddress('ETH', servicePath('ETH_TESTNET', 'treasury'));
    const tankWallet = createWalletClient({ account: tank, chain, transport: http(anvil.rpcUrl) });
    const tb = performance.now();
    const topUps: Hex[] = [];
    for (const a of locals) topUps.push(await tankWallet.sendTransaction({ to: a.address, value: 10n ** 15n, gas: 21_000n }));
    for (const h of topUps) await rpc(anvil.rpcUrl, 'eth_getTransactionReceipt', [h]);
    const moves: Hex[] = [];
    for (const a of locals) {
      const w = createWalletClient({ account: a, chain, transport: http(anvil.rpcUrl) });
      moves.push(await w.writeContract({ address: usdt!, abi: erc20Abi, functionName: 'transfer', args: [treasury as Hex, AMOUNT] }));
    }
    for (const h of moves) await rpc(anvil.rpcUrl, 'eth_getTransactionReceipt', [h]);
    const viemSeconds = (performance.now() - tb) / 1000;
    const viemPerMin = (ADDRESSES / viemSeconds) * 60;
    log(`viem alone: the same ${2 * ADDRESSES} transactions in ${viemSeconds.toFixed(1)} s: ${viemPerMin.toFixed(0)} sweeps/min`);
    const minimumGas = Number(21_000n + (await gasUsed(anvil.rpcUrl, moves[0]!)));
    log(`gas per swept deposit: ${gasPerSweep.toFixed(0)} (top-up + transfer); minimum one transfer + one top-up: ${minimumGas}`);

    return [
      {
        name: `sweeps of ${ADDRESSES} funded USDT addresses through the pipeline (top-up, sweep, receipts, 1 confirmation)`,
        value: Math.round(pipelinePerMin),
        unit: 'sweeps/min',
        baseline: { name: 'viem alone sending the same top-ups and transfers, waiting for receipts', value: Math.round(viemPerMin) },
        ratio: Number((pipelinePerMin / viemPerMin).toFixed(2)),
        goal: 'ratio >= 0.5',
      },
      {
        name: 'gas units per swept USDT deposit (top-up + token transfer, from the receipts)',
        value: Math.round(gasPerSweep),
        unit: 'gas',
        baseline: { name: 'one 21,000-gas top-up plus one ERC-20 transfer of the same amount', value: minimumGas },
        ratio: Number((gasPerSweep / minimumGas).toFixed(3)),
        goal: 'the minimum (ratio 1)',
      },
    ];
  } finally {
    await infra.close();
    await client.end();
    await anvil.stop();
  }
}
