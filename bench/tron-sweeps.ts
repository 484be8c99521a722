// TRON sweep figures for `npm run bench`, each next to a baseline from the
// same run on the same TRON stand-in (which burns TRX for bandwidth, energy
// and account creation as java-tron does):
// - TRX burnt per swept USDT_TRON deposit on an address never activated (the
//   gas tank's top-up with its activation, then the sweep), from the
//   transaction infos, next to tronweb alone sending the same two
//   transactions (a TRX transfer that activates the address, one USDT
//   transfer) for fresh addresses;
// - sweeps per minute through the real pipeline next to tronweb alone
//   sending the same transactions, a block mined after each step or batch.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { TronWeb } from 'tronweb';
import { mnemonicToAccount } from 'viem/accounts';
import { rpc } from '../src/adapters/sandbox/anvil.js';
import { openInfrastructure } from '../src/bootstrap/infrastructure.js';
import type { Config } from '../src/bootstrap/config.js';
import type { BenchRow } from './webhooks.js';

const ADDRESSES = 100;
const AMOUNT = 20_000_000n; // 20 USDT: over the 10 USDT_TRON minimum
const TRX = 1_000_000n;

export async function benchTronSweeps(config: Config, seed: string, log: (line: string) => void): Promise<BenchRow[]> {
  const { startTronStandin } = await import('../src/adapters/sandbox/tron-standin.js');
  const { freePort } = await import('../src/adapters/sandbox/local-ports.js');
  const { deploySandboxTokens } = await import('../src/adapters/sandbox/contracts/sandbox-token.js');
  const { TronChainPort } = await import('../src/adapters/chains/tron-chain.js');
  const { RunSweeps } = await import('../src/application/sweeps/run-sweeps.js');
  const { ProcessTransfers, TransferOutcomes } = await import('../src/application/transfers/process-transfers.js');
  const { LocalHdSigner } = await import('../src/adapters/signer/hd-signer.js');
  const { depositPath, servicePath, formatPath } = await import('../src/domain/custody/derivation.js');
  const standin = await startTronStandin({ port: await freePort(), blockTimeSeconds: null });
  const node = standin.anvil.rpcUrl;
  const mine = () => rpc(node, 'anvil_mine', ['0x1']);
  const client = new pg.Client({ connectionString: config.databaseUrl });
  await client.connect();
  const settings: Config = {
    ...config,
    ports: { ...config.ports, api: 0, chainWorker: 0, dispatcher: 0 },
    networks: config.networks.map((n) => (n.network === 'TRON_TESTNET' ? { ...n, requiredConfirmations: 1 } : n)),
  };
  const infra = await openInfrastructure(settings, { processName: 'bench', runsWorkers: false, seed: 'required' });
  try {
    const [usdtEvm] = await deploySandboxTokens(node, [{ name: 'Tether USD', symbol: 'USDT', decimals: 6 }], { gasPrice: 0n });
    const usdt = TronWeb.address.fromHex(`41${usdtEvm!.slice(2)}`);
    const evmOf = (tron: string) => `0x${TronWeb.address.toHex(tron).slice(2)}`;
    const signer = new LocalHdSigner(seed);
    const tank = await signer.deriveAddress('TRON', servicePath('TRON_TESTNET', 'gasTank'));
    const treasury = await signer.deriveAddress('TRON', servicePath('TRON_TESTNET', 'treasury'));
    await rpc(node, 'anvil_setBalance', [evmOf(tank), `0x${(1_000_000n * TRX).toString(16)}`]);
    await rpc(node, 'anvil_setBalance', [evmOf(treasury), `0x${(1_000n * TRX).toString(16)}`]);
    const mint = async (addresses: string[]) => {
      for (const a of addresses) {
        const data = `0x40c10f19${evmOf(a).slice(2).padStart(64, '0')}${AMOUNT.toString(16).padStart(64, '0')}`;
        await rpc(node, 'eth_sendTransaction', [{ from: evmOf(treasury), to: usdtEvm, data, gas: '0x186a0', gasPrice: '0x0' }]);
      }
      await mine();
    };

    // 100 USDT_TRON wallets, never activated, each holding 20 USDT on chain and one CONFIRMED deposit of it.
    const workspaceId = randomUUID();
    await client.query(`insert into workspaces (id, name, status, created_at, updated_at) values ($1, 'tron-sweep-bench', 'ACTIVE', now(), now())`, [workspaceId]);
    const { rows } = await client.query<{ account: number }>(
      `insert into hd_accounts (workspace_id, network, next_index) values ($1, 'TRON_TESTNET', $2) returning account`,
      [workspaceId, ADDRESSES],
    );
    const account = rows[0]!.account;
    const addresses: string[] = [];
    for (let i = 0; i < ADDRESSES; i++) addresses.push(await signer.deriveAddress('TRON', depositPath('TRON', account, i)));
    await client.query(
      `insert into wallets (id, workspace_id, network, asset, address, derivation_account, derivation_index, status, created_at)
       select gen_random_uuid(), $1, 'TRON_TESTNET', 'USDT_TRON', a, $2, i - 1, 'ACTIVE', now() from unnest($3::text[]) with ordinality as t(a, i)`,
      [workspaceId, account, addresses],
    );
    await client.query(
      `insert into deposits (id, workspace_id, wallet_id, network, asset, txid, log_index, from_address, to_address, chain_amount, amount,
         block_number, block_hash, status, confirmations, required_confirmations, fee_amount, net_amount, applied_rate_ppm, applied_min_fee,
         detected_at, confirmed_at, created_at, updated_at)
       select gen_random_uuid(), w.workspace_id, w.id, 'TRON_TESTNET', 'USDT_TRON', md5(w.id::text) || md5(w.address), 0, $2, w.address, $3::numeric, $3::numeric,
         1, '00', 'CONFIRMED', 1, 1, 1000000, $3::numeric - 1000000, 9000, 1000000, now(), now(), now(), now()
       from wallets w where w.workspace_id = $1`,
      [workspaceId, treasury, AMOUNT.toString()],
    );
    await mint(addresses);
    log(`TRON sweep bench: ${ADDRESSES} never-activated addresses hold ${AMOUNT / TRX} USDT each`);

    infra.container.registerInstance(TransferOutcomes, new TransferOutcomes());
    const sweeps = infra.container.resolve(RunSweeps);
    const transfers = infra.container.resolve(ProcessTransfers);
    const port = new TronChainPort({ network: 'TRON_TESTNET', urls: [standin.url], contracts: { USDT_TRON: usdt } });
    const swept = async () => Number((await client.query<{ n: string }>(`select count(*)::text as n from deposits where workspace_id = $1 and status = 'SWEPT'`, [workspaceId])).rows[0]!.n);
    const t0 = performance.now();
    let steps = 0;
    while ((await swept()) < ADDRESSES) {
      await sweeps.step(port, { batch: 200 });
      await transfers.step(port, { replaceAfterMs: 600_000, rebroadcastAfterMs: 60_000, batch: 500 });
      await mine();
      steps++;
      if (performance.now() - t0 > 600_000) throw new Error('TRON sweep bench: not all swept in 10 minutes');
    }
    const pipelineSeconds = (performance.now() - t0) / 1000;
    const pipelinePerMin = (ADDRESSES / pipelineSeconds) * 60;
    const burnt = await client.query<{ total: string }>(
      `select sum(t.fee_paid)::text as total from outgoing_transfers t join sweeps s on s.id = t.owner_id where s.wallet_id in (select id from wallets where workspace_id = $1)`,
      [workspaceId],
    );
    const pipelineBurn = Number(BigInt(burnt.rows[0]!.total)) / ADDRESSES;
    log(`pipeline: ${ADDRESSES} TRON sweeps (activating top-up, sweep) in ${pipelineSeconds.toFixed(1)} s over ${steps} steps: ${pipelinePerMin.toFixed(0)} sweeps/min, ${(pipelineBurn / 1e6).toFixed(3)} TRX burnt each`);

    // Baseline: tronweb alone, the same two transactions per fresh address (keys from the same seed).
    const keyOf = (path: Parameters<typeof formatPath>[0]) => {
      const key = mnemonicToAccount(seed, { path: formatPath(path) as `m/44'/60'/${string}` }).getHdKey().privateKey!;
      return Buffer.from(key).toString('hex');
    };
    const tankWeb = new TronWeb({ fullHost: standin.url, privateKey: keyOf(servicePath('TRON_TESTNET', 'gasTank')) });
    const fresh = Array.from({ length: ADDRESSES }, (_, i) => depositPath('TRON', account + 1, i));
    const freshAddresses = await Promise.all(fresh.map((p) => signer.deriveAddress('TRON', p)));
    await mint(freshAddresses);
    const topUp = Number(30n * TRX);
    const tb = performance.now();
    const txids: string[] = [];
    for (const a of freshAddresses) {
      const sent = (await tankWeb.trx.sendTrx(a, topUp)) as { result?: boolean; txid?: string };
      if (!sent.result) throw new Error('tronweb: top-up refused');
      txids.push(sent.txid!);
    }
    await mine();
    for (let i = 0; i < ADDRESSES; i++) {
      const web = new TronWeb({ fullHost: standin.url, privateKey: keyOf(fresh[i]!) });
      const built = await web.transactionBuilder.triggerSmartContract(usdt, 'transfer(address,uint256)', { feeLimit: 30_000_000 }, [
        { type: 'address', value: treasury },
        { type: 'uint256', value: AMOUNT.toString() },
      ]);
      const sent = (await web.trx.sendRawTransaction((await web.trx.sign(built.transaction)) as never)) as { result?: boolean };
      if (!sent.result) throw new Error('tronweb: transfer refused');
      txids.push(built.transaction.txID);
    }
    await mine();
    let baselineBurnTotal = 0n;
    for (const id of txids) {
      const info = (await (await fetch(`${standin.url}/wallet/gettransactioninfobyid`, { method: 'POST', body: JSON.stringify({ value: id }) })).json()) as { fee?: number; receipt?: { result?: string } };
      if (info.receipt?.result && info.receipt.result !== 'SUCCESS') throw new Error(`tronweb: ${id} failed`);
      baselineBurnTotal += BigInt(info.fee ?? 0);
    }
    const baselineSeconds = (performance.now() - tb) / 1000;
    const baselinePerMin = (ADDRESSES / baselineSeconds) * 60;
    const baselineBurn = Number(baselineBurnTotal) / ADDRESSES;
    log(`tronweb alone: the same ${2 * ADDRESSES} transactions in ${baselineSeconds.toFixed(1)} s: ${baselinePerMin.toFixed(0)} sweeps/min, ${(baselineBurn / 1e6).toFixed(3)} TRX burnt each`);

    return [
      {
        name: `TRON sweeps of ${ADDRESSES} never-activated USDT_TRON addresses through the pipeline (activating top-up, sweep, 1 confirmation)`,
        value: Math.round(pipelinePerMin),
        unit: 'sweeps/min',
        baseline: { name: 'tronweb alone sending the same top-ups and transfers', value: Math.round(baselinePerMin) },
        ratio: Number((pipelinePerMin / baselinePerMin).toFixed(2)),
      },
      {
        name: 'TRX burnt per swept USDT_TRON deposit on a never-activated address (top-up with activation + transfer, from the transaction infos)',
        value: Number((pipelineBurn / 1e6).toFixed(3)),
        unit: 'TRX',
        baseline: { name: 'tronweb alone: one activating TRX transfer plus one USDT transfer', value: Number((baselineBurn / 1e6).toFixed(3)) },
        ratio: Number((pipelineBurn / baselineBurn).toFixed(3)),
        goal: 'the baseline (ratio 1)',
      },
    ];
  } finally {
    await infra.close();
    await client.end();
    await standin.stop();
  }
}
