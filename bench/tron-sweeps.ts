// TRON sweep figures for `npm run bench`, each next to a baseline from the
// same run on the same TRON stand-in (which burns TRX for bandwidth, energy
// and account creation as java-tron does):
// - TRX burnt per swept USDT_TRON deposit on an address never activated (the
//   gas tank's top-up with its activation, then the sweep), from the
//   transaction infos, next to tronweb alone sending the same two
//   transactions (a TRX transfer that activates the address, one USDT
//   transfer) for fresh addresses;
// - sweeps per minute through the real pipeline next to tronweb alone
//   sending the same transactions, a block mined after each step or batch;
// - with the network's energy source set to `stake` (ADR 0035: the energy
//   account funded and its TRX staked through the pipeline, as `ops energy
//   stake` does), TRX burnt per swept deposit on a never-activated address
//   from the transaction infos of every transaction the service sent for
//   those sweeps (top-ups, sweeps, delegations, take-backs), and sweeps per
//   minute, each next to the same figure of the `burn` source's run above
//   (same stand-in, same run; its burn read from the infos the same way).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { TronWeb } from 'tronweb';
import { mnemonicToAccount } from 'viem/accounts';
import { rpc } from '../src/adapters/sandbox/anvil.js';
import { openInfrastructure } from '../src/bootstrap/infrastructure.js';
import type { Config } from '../src/bootstrap/config.js';
import type { BenchRow } from './webhooks.js';

const ADDRESSES = 100;
/**
 * Deposits swept on lent energy (the `stake` source), next to the ADDRESSES of the `burn` run: half as many keeps the
 * group's time within twice what it took without them. The rate is per sweep: a run at 100 gave 0.51 of the burn
 * run's, within the spread of runs at 50 on the shared 2-core machine (0.48 to 0.76).
 */
const STAKE_ADDRESSES = 50;
const AMOUNT = 20_000_000n; // 20 USDT: over the 10 USDT_TRON minimum
const TRX = 1_000_000n;

export async function benchTronSweeps(config: Config, seed: string, log: (line: string) => void): Promise<BenchRow[]> {
  const { startTronStandin } = await import('../src/adapters/sandbox/tron-standin.js');
  const { freePort } = await import('../src/adapters/sandbox/local-ports.js');
  const { deploySandboxTokens } = await import('../src/adapters/sandbox/contracts/sandbox-token.js');
  const { TronChainPort } = await import('../src/adapters/chains/tron-chain.js');
  const { RunSweeps } = await import('../src/application/sweeps/run-sweeps.js');
  const { LendEnergy } = await import('../src/application/energy/lend-energy.js');
  const { ENERGY_COMMANDS } = await import('../src/adapters/cli/energy-commands.js');
  const { runOps } = await import('../src/adapters/cli/run-ops.js');
  const { TOKENS } = await import('../src/application/tokens.js');
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

    // USDT_TRON wallets of a workspace of their own, never activated, each holding 20 USDT on chain and one CONFIRMED deposit of it.
    const depositsOn = async (name: string, count: number, fixedAccount?: number) => {
      const workspaceId = randomUUID();
      await client.query(`insert into workspaces (id, name, status, created_at, updated_at) values ($1, $2, 'ACTIVE', now(), now())`, [workspaceId, name]);
      const { rows } =
        fixedAccount === undefined
          ? await client.query<{ account: number }>(`insert into hd_accounts (workspace_id, network, next_index) values ($1, 'TRON_TESTNET', $2) returning account`, [workspaceId, count])
          : await client.query<{ account: number }>(
              `insert into hd_accounts (account, workspace_id, network, next_index) values ($3, $1, 'TRON_TESTNET', $2) returning account`,
              [workspaceId, count, fixedAccount],
            );
      const account = rows[0]!.account;
      const addresses: string[] = [];
      for (let i = 0; i < count; i++) addresses.push(await signer.deriveAddress('TRON', depositPath('TRON', account, i)));
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
      return { workspaceId, account, addresses };
    };
    const { workspaceId, account } = await depositsOn('tron-sweep-bench', ADDRESSES);
    log(`TRON sweep bench: ${ADDRESSES} never-activated addresses hold ${AMOUNT / TRX} USDT each`);

    infra.container.registerInstance(TransferOutcomes, new TransferOutcomes());
    // One lender of TRON energy, as in the chain-worker: the loans it asks for are seen by the outcomes it handles.
    infra.container.registerSingleton(LendEnergy);
    const sweeps = infra.container.resolve(RunSweeps);
    const transfers = infra.container.resolve(ProcessTransfers);
    const port = new TronChainPort({ network: 'TRON_TESTNET', urls: [standin.url], contracts: { USDT_TRON: usdt } });
    const step = async () => {
      await sweeps.step(port, { batch: 200 });
      await transfers.step(port, { replaceAfterMs: 600_000, rebroadcastAfterMs: 60_000, batch: 500 });
      await mine();
    };
    const swept = async (ws: string) => Number((await client.query<{ n: string }>(`select count(*)::text as n from deposits where workspace_id = $1 and status = 'SWEPT'`, [ws])).rows[0]!.n);
    /** Steps the pipeline until every deposit of the workspace is SWEPT: seconds and steps. */
    const sweepAll = async (ws: string, count: number) => {
      const t0 = performance.now();
      let steps = 0;
      while ((await swept(ws)) < count) {
        await step();
        steps++;
        if (performance.now() - t0 > 600_000) throw new Error('TRON sweep bench: not all swept in 10 minutes');
      }
      return { seconds: (performance.now() - t0) / 1000, steps };
    };
    const { seconds: pipelineSeconds, steps } = await sweepAll(workspaceId, ADDRESSES);
    const pipelinePerMin = (ADDRESSES / pipelineSeconds) * 60;
    const burnt = await client.query<{ total: string }>(
      `select sum(t.fee_paid)::text as total from outgoing_transfers t join sweeps s on s.id = t.owner_id where s.wallet_id in (select id from wallets where workspace_id = $1)`,
      [workspaceId],
    );
    const pipelineBurn = Number(BigInt(burnt.rows[0]!.total)) / ADDRESSES;
    log(`pipeline: ${ADDRESSES} TRON sweeps (activating top-up, sweep) in ${pipelineSeconds.toFixed(1)} s over ${steps} steps: ${pipelinePerMin.toFixed(0)} sweeps/min, ${(pipelineBurn / 1e6).toFixed(3)} TRX burnt each`);

    const txInfo = async (id: string) =>
      (await (await fetch(`${standin.url}/wallet/gettransactioninfobyid`, { method: 'POST', body: JSON.stringify({ value: id }) })).json()) as {
        fee?: number;
        receipt?: { result?: string };
      };
    /**
     * What the chain burnt for the sweeps of a workspace, from the transaction infos: every transaction the service
     * signed for them (each attempt of the top-ups and sweeps, and of the delegations to their addresses and the
     * take-backs), by kind.
     */
    const burntFromInfos = async (ws: string) => {
      const { rows } = await client.query<{ txid: string; kind: string }>(
        `select a.txid, t.kind from transfer_attempts a join outgoing_transfers t on t.id = a.transfer_id
         where t.owner_id in (select s.id from sweeps s join wallets w on w.id = s.wallet_id where w.workspace_id = $1)
            or (t.kind in ('ENERGY_DELEGATE', 'ENERGY_RECLAIM') and t.to_address in (select address from wallets where workspace_id = $1))`,
        [ws],
      );
      const byKind: Record<string, { transactions: number; sun: bigint }> = {};
      let total = 0n;
      for (let i = 0; i < rows.length; i += 25) {
        const infos = await Promise.all(rows.slice(i, i + 25).map((r) => txInfo(r.txid.replace(/^0x/, ''))));
        infos.forEach((info, j) => {
          const kind = rows[i + j]!.kind;
          const fee = BigInt(info.fee ?? 0);
          byKind[kind] = { transactions: (byKind[kind]?.transactions ?? 0) + 1, sun: (byKind[kind]?.sun ?? 0n) + fee };
          total += fee;
        });
      }
      const kinds = Object.entries(byKind)
        .map(([k, v]) => `${k} ${v.transactions} (${(Number(v.sun) / 1e6).toFixed(3)} TRX)`)
        .join(', ');
      return { total, kinds };
    };
    const burnInfos = await burntFromInfos(workspaceId);
    const burnSourceBurn = Number(burnInfos.total) / ADDRESSES;
    log(`  from the transaction infos: ${(burnSourceBurn / 1e6).toFixed(3)} TRX each; ${burnInfos.kinds}`);

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
      const info = await txInfo(id);
      if (info.receipt?.result && info.receipt.result !== 'SUCCESS') throw new Error(`tronweb: ${id} failed`);
      baselineBurnTotal += BigInt(info.fee ?? 0);
    }
    const baselineSeconds = (performance.now() - tb) / 1000;
    const baselinePerMin = (ADDRESSES / baselineSeconds) * 60;
    const baselineBurn = Number(baselineBurnTotal) / ADDRESSES;
    log(`tronweb alone: the same ${2 * ADDRESSES} transactions in ${baselineSeconds.toFixed(1)} s: ${baselinePerMin.toFixed(0)} sweeps/min, ${(baselineBurn / 1e6).toFixed(3)} TRX burnt each`);

    // The `stake` source on the same stand-in (ADR 0035): the energy account funded, its TRX staked and the policy set
    // through `ops energy` (the stake sent by the pipeline), then deposits to never-activated addresses swept on energy
    // lent for each sweep and taken back after it. Each sweep borrows about 7,150 TRX of stake (65,000 energy and the
    // 10 % margin at 10 energy a staked TRX), all at once here, and the energy it used stays counted against the stake
    // for the resource window (24 h): 15,000 TRX a sweep lends to every one of them, none burns for want of stake.
    const opsEnergy = async (...args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const c = infra.container.createChildContainer();
      c.register(TOKENS.BalanceReaders, { useValue: [port] });
      const code = await runOps(ENERGY_COMMANDS, [...args, '--json'], { resolve: (tok) => c.resolve(tok) }, { out: (x) => out.push(x), err: (x) => err.push(x) });
      if (code !== 0) throw new Error(`ops ${args.join(' ')}: exit ${code}: ${err.join('')}${out.join('')}`);
      return JSON.parse(out.join('')) as Record<string, unknown>;
    };
    const energyAccount = await signer.deriveAddress('TRON', servicePath('TRON_TESTNET', 'energy'));
    const stakeTrx = BigInt(STAKE_ADDRESSES) * 15_000n;
    await rpc(node, 'anvil_setBalance', [evmOf(energyAccount), `0x${((stakeTrx + 1_000n) * TRX).toString(16)}`]);
    await mine();
    await opsEnergy('energy', 'policy', 'set', '--network', 'TRON_TESTNET', '--source', 'stake');
    const staking = await opsEnergy('energy', 'stake', '--network', 'TRON_TESTNET', '--trx', stakeTrx.toString());
    const transferStatus = async (id: string) => (await client.query<{ status: string }>(`select status from outgoing_transfers where id = $1`, [id])).rows[0]?.status;
    for (let i = 0; (await transferStatus(String(staking.transfer_id))) !== 'CONFIRMED'; i++) {
      if (i >= 20) throw new Error(`TRON sweep bench: the stake is ${await transferStatus(String(staking.transfer_id))} after ${i} steps`);
      await transfers.step(port, { replaceAfterMs: 600_000, rebroadcastAfterMs: 60_000, batch: 500 });
      await mine();
    }
    if ((await port.stake(energyAccount))?.staked !== stakeTrx * TRX) throw new Error('TRON sweep bench: the stake is not on chain');
    // Its own HD account, past the one tronweb's fresh addresses used (account + 1, never recorded).
    const onStake = await depositsOn('tron-sweep-bench-stake', STAKE_ADDRESSES, account + 2);
    log(`energy account ${energyAccount}: ${stakeTrx} TRX staked through the pipeline, source stake; ${STAKE_ADDRESSES} more never-activated addresses hold ${AMOUNT / TRX} USDT each`);
    const stakeRun = await sweepAll(onStake.workspaceId, STAKE_ADDRESSES);
    const stakePerMin = (STAKE_ADDRESSES / stakeRun.seconds) * 60;
    // Then every loan taken back (its take-back's fee counts).
    const loans = async () =>
      (
        await client.query<{ status: string; n: number }>(`select status, count(*)::int as n from energy_delegations where receiver = any($1::text[]) group by status`, [
          onStake.addresses,
        ])
      ).rows;
    const t1 = performance.now();
    let extra = 0;
    while ((await loans()).some((l) => l.status !== 'RECLAIMED' && l.status !== 'CANCELLED')) {
      await step();
      extra++;
      if (performance.now() - t1 > 120_000) throw new Error(`TRON sweep bench: loans not taken back in 2 minutes: ${JSON.stringify(await loans())}`);
    }
    const reclaimedLoans = (await loans()).find((l) => l.status === 'RECLAIMED')?.n ?? 0;
    const fallbacks = (
      await client.query<{ n: number }>(
        `select count(*)::int as n from energy_fallbacks f join sweeps s on s.id = f.purpose_id join wallets w on w.id = s.wallet_id where f.purpose = 'SWEEP' and w.workspace_id = $1`,
        [onStake.workspaceId],
      )
    ).rows[0]!.n;
    if (reclaimedLoans !== STAKE_ADDRESSES || fallbacks !== 0) {
      throw new Error(`TRON sweep bench: ${reclaimedLoans} of ${STAKE_ADDRESSES} sweeps on lent energy, ${fallbacks} burnt for want of it: ${JSON.stringify(await loans())}`);
    }
    if ((await port.stake(energyAccount))?.delegated !== 0n) throw new Error('TRON sweep bench: stake still lent after the run');
    const stakeInfos = await burntFromInfos(onStake.workspaceId);
    const stakeBurn = Number(stakeInfos.total) / STAKE_ADDRESSES;
    log(
      `pipeline, source stake: ${STAKE_ADDRESSES} TRON sweeps (activating top-up, delegation, sweep on lent energy) in ${stakeRun.seconds.toFixed(1)} s over ${stakeRun.steps} steps ` +
        `(every stake back ${extra} steps and ${((performance.now() - t1) / 1000).toFixed(1)} s later): ${stakePerMin.toFixed(0)} sweeps/min, ` +
        `${(stakeBurn / 1e6).toFixed(3)} TRX burnt each from the transaction infos; ${stakeInfos.kinds}`,
    );

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
      {
        name: `TRX burnt per swept USDT_TRON deposit on a never-activated address with the stake energy source (activating top-up, delegation, transfer on lent energy, take-back; ${STAKE_ADDRESSES} deposits, from the transaction infos)`,
        value: Number((stakeBurn / 1e6).toFixed(3)),
        unit: 'TRX',
        baseline: { name: `the burn energy source in the same run (activating top-up + transfer burning its energy; ${ADDRESSES} deposits, from the transaction infos)`, value: Number((burnSourceBurn / 1e6).toFixed(3)) },
        ratio: Number((stakeBurn / burnSourceBurn).toFixed(3)),
      },
      {
        name: `TRON sweeps of ${STAKE_ADDRESSES} never-activated USDT_TRON addresses through the pipeline with the stake energy source (activating top-up, delegation, sweep on lent energy, 1 confirmation)`,
        value: Math.round(stakePerMin),
        unit: 'sweeps/min',
        baseline: { name: `the burn energy source in the same run (${ADDRESSES} addresses, activating top-up, sweep)`, value: Math.round(pipelinePerMin) },
        ratio: Number((stakePerMin / pipelinePerMin).toFixed(2)),
      },
    ];
  } finally {
    await infra.close();
    await client.end();
    await standin.stop();
  }
}
