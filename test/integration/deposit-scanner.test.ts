// The deposit scanner (ScanNetwork) against the real database, on a chain the
// test writes block by block: detection once per identity, confirmations,
// crediting with the fee engine at the threshold fixed when first seen,
// DEPOSIT_* events in the same transaction, screening, reorgs before and
// after credit (ADR 0021) with the ledger check at zero differences, two
// scanners on one network, a failing node, and wallets created while it runs.
import { beforeAll, describe, expect, it } from 'vitest';
import { ScanNetwork, type ScanOptions } from '../../src/application/deposits/scan-network.js';
import { CheckLedger } from '../../src/application/ledger/check-ledger.js';
import { TOKENS } from '../../src/application/tokens.js';
import { agreedKey, ChainUnavailableError } from '../../src/domain/chains/chain-port.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { EVENT_DATA_SCHEMAS } from '../../src/adapters/webhooks/event-schemas.js';
import { uniqueCall, useTestApi } from '../support/harness.js';
import { FakeClock } from '../support/fakes.js';
import { ScriptedChain } from '../support/scripted-chain.js';

const t = useTestApi({ workspace: 'scanner', env: { ETH_TESTNET_CONFIRMATIONS: '3' } });
const OUTSIDE = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const DENIED = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const opts = (owner = 'worker-a'): ScanOptions => ({ owner, leaseSeconds: 30, batchBlocks: 50, keepBlocks: 64, startBlock: 0n });

let chain: ScriptedChain;
let scan: ScanNetwork;
let txCounter = 0;
const txid = () => `0x${(++txCounter).toString(16).padStart(64, '0')}`;
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);

async function wallet(asset = 'USDT_ETH'): Promise<{ id: string; address: string }> {
  const res = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, address: res.body.address as string };
}

async function deposit(id: string) {
  const [row] = await sql<{ status: string; confirmations: number; required_confirmations: number; fee_amount: string | null; net_amount: string | null; block_number: string }>(
    `select status, confirmations, required_confirmations, fee_amount::text, net_amount::text, block_number::text from deposits where wallet_id = ?`,
    [id],
  );
  return row;
}

async function events(walletId: string): Promise<string[]> {
  const rows = await sql<{ event: string; body: string }>(
    `select event, payload as body from webhook_events where workspace_id = ? and payload like ? order by created_at, id`,
    [t.ws.workspaceId, `%${walletId}%`],
  );
  for (const r of rows) {
    const data = (JSON.parse(r.body) as { data: unknown }).data;
    expect(EVENT_DATA_SCHEMAS[r.event as keyof typeof EVENT_DATA_SCHEMAS].safeParse(data).success).toBe(true);
  }
  return rows.map((r) => r.event);
}

async function available(asset = 'USDT_ETH'): Promise<string> {
  const res = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'GET', `/v2/balances?asset=${asset}`);
  return (res.body.data as { available: string }[])[0]?.available ?? '0';
}

/** Scans until caught up with the head. */
async function catchUp(owner = 'worker-a') {
  for (let i = 0; i < 20; i++) {
    const o = await scan.step(chain, opts(owner));
    if (o.kind === 'idle') return;
  }
  throw new Error('scanner did not catch up');
}

beforeAll(async () => {
  chain = new ScriptedChain('ETH_TESTNET');
  scan = t.api.infra.container.resolve(ScanNetwork);
  // Events are recorded only for subscribed endpoints' workspaces: subscribe one.
  const hook = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/webhooks', {
    url: 'https://93.184.216.34/hooks',
    events: ['DEPOSIT_DETECTED', 'DEPOSIT_CONFIRMED', 'DEPOSIT_FLAGGED', 'DEPOSIT_REJECTED'],
  });
  expect(hook.status).toBe(201);
});

describe('the deposit scanner', () => {
  it('detects a transfer once, confirms it at 3 blocks and credits the net with the fee engine', async () => {
    const w = await wallet();
    const tx = txid();
    chain.mine([{ txid: tx, logIndex: 0, asset: 'USDT_ETH', from: OUTSIDE, to: w.address, amount: 250_000_000n }]);
    await catchUp();
    expect(await deposit(w.id)).toMatchObject({ status: 'DETECTED', confirmations: 1, required_confirmations: 3, fee_amount: null });
    // A second scanner reading the same blocks (another lease, later) records nothing new.
    chain.mine();
    await catchUp();
    expect(await deposit(w.id)).toMatchObject({ status: 'CONFIRMING', confirmations: 2 });
    chain.mine();
    await catchUp();
    // 250 USDT at the STANDARD 0.90 % = 2.25 < min fee 3.00: fee 3, net 247.
    expect(await deposit(w.id)).toMatchObject({ status: 'CONFIRMED', confirmations: 3, fee_amount: '3000000', net_amount: '247000000' });
    expect(await available()).toBe('247.000000');
    expect(await events(w.id)).toEqual(['DEPOSIT_DETECTED', 'DEPOSIT_CONFIRMED']);
    const count = await sql<{ n: string }>(`select count(*)::text as n from deposits where txid = ?`, [tx]);
    expect(count[0]!.n).toBe('1');
  });

  it('does not rewrite a CONFIRMING deposit at every step; the API counts it up to what the scanner read', async () => {
    const w = await wallet();
    chain.mine([{ txid: txid(), logIndex: 0, asset: 'USDT_ETH', from: OUTSIDE, to: w.address, amount: 40_000_000n }]);
    await catchUp();
    // A deposit that needs 10 (as if the threshold had been 10 when it was first seen).
    await sql(`update deposits set required_confirmations = 10 where wallet_id = ?`, [w.id]);
    chain.mine();
    await catchUp();
    expect(await deposit(w.id)).toMatchObject({ status: 'CONFIRMING', confirmations: 2 });
    chain.mine();
    chain.mine();
    chain.mine();
    await catchUp();
    expect(await deposit(w.id)).toMatchObject({ status: 'CONFIRMING', confirmations: 2 }); // stored as it was
    const list = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'GET', `/v2/transactions/deposits?wallet_id=${w.id}`);
    expect((list.body.data as { confirmations: number; required_confirmations: number }[])[0]).toMatchObject({ confirmations: 5, required_confirmations: 10 });
    const id = (list.body.data as { id: string }[])[0]!.id;
    const one = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'GET', `/v2/transactions/deposits/${id}`);
    expect(one.body).toMatchObject({ status: 'CONFIRMING', confirmations: 5 });
  });

  it('keeps required_confirmations fixed when the network threshold changes later', async () => {
    const w = await wallet();
    chain.mine([{ txid: txid(), logIndex: 0, asset: 'USDT_ETH', from: OUTSIDE, to: w.address, amount: 10_000_000n }]);
    await catchUp();
    await sql(`update deposits set required_confirmations = required_confirmations where wallet_id = ?`, [w.id]);
    expect((await deposit(w.id))!.required_confirmations).toBe(3);
  });

  it('ignores transfers to unmonitored addresses and of another asset than the wallet’s', async () => {
    const w = await wallet('ETH');
    chain.mine([
      { txid: txid(), logIndex: 0, asset: 'USDT_ETH', from: OUTSIDE, to: w.address, amount: 1_000_000n },
      { txid: txid(), logIndex: 1, asset: 'USDT_ETH', from: OUTSIDE, to: DENIED, amount: 1_000_000n },
    ]);
    await catchUp();
    expect(await deposit(w.id)).toBeUndefined();
  });

  it('monitors a wallet created while it runs, from its creation', async () => {
    await catchUp();
    const w = await wallet();
    chain.mine([{ txid: txid(), logIndex: 3, asset: 'USDT_ETH', from: OUTSIDE, to: w.address, amount: 60_000_000n }]);
    await catchUp();
    expect((await deposit(w.id))!.status).toBe('DETECTED');
  });

  it('flags a deposit from a denied sender at its threshold, never crediting it', async () => {
    const w = await wallet();
    await t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork).run((tx) => tx.screening.deny('ETH', DENIED, new Date()));
    chain.mine([{ txid: txid(), logIndex: 0, asset: 'USDT_ETH', from: DENIED, to: w.address, amount: 70_000_000n }]);
    chain.mineMany(2);
    await catchUp();
    expect((await deposit(w.id))!.status).toBe('FLAGGED');
    const entries = await sql<{ n: string }>(
      `select count(*)::text as n from journal_entries where reference like (select 'deposit:' || id || ':%' from deposits where wallet_id = ?)`,
      [w.id],
    );
    expect(entries[0]!.n).toBe('0');
    expect(await events(w.id)).toEqual(['DEPOSIT_DETECTED', 'DEPOSIT_FLAGGED']);
  });

  it('credits and flags a step’s many due deposits together: each its fee and entry, its events, a delivery and a job each', async () => {
    const uow = t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    await uow.run((tx) => tx.screening.deny('ETH', DENIED, new Date()));
    const wallets = [];
    for (let i = 0; i < 40; i++) wallets.push(await wallet());
    const before = BigInt(Math.round(Number(await available()) * 1e6));
    // Two transfers per wallet in one block (the second log of each transaction from a denied sender for every fourth).
    chain.mine(
      wallets.flatMap((w, i) => {
        const tx = txid();
        return [
          { txid: tx, logIndex: 0, asset: 'USDT_ETH' as const, from: OUTSIDE, to: w.address, amount: 1_000_000_000n + BigInt(i) },
          { txid: tx, logIndex: 1, asset: 'USDT_ETH' as const, from: i % 4 === 0 ? DENIED : OUTSIDE, to: w.address, amount: 100_000_000n },
        ];
      }),
    );
    chain.mineMany(2);
    await catchUp();
    const rows = await sql<{ status: string; amount: string; fee_amount: string | null; net_amount: string | null; id: string }>(
      `select id, status, amount::text, fee_amount::text, net_amount::text from deposits where wallet_id = any(?::uuid[])`,
      [`{${wallets.map((w) => w.id).join(',')}}`],
    );
    expect(rows).toHaveLength(80);
    const flagged = rows.filter((r) => r.status === 'FLAGGED');
    const credited = rows.filter((r) => r.status === 'CONFIRMED');
    expect([flagged.length, credited.length]).toEqual([10, 70]);
    expect(flagged.every((r) => r.fee_amount === null)).toBe(true);
    // 0.90 % (rounded up) with a 3 USDT minimum: 1,000 USDT pays 9, 100 USDT pays the minimum.
    for (const r of credited) {
      const fee = BigInt(r.amount) >= 1_000_000_000n ? (BigInt(r.amount) * 9_000n + 999_999n) / 1_000_000n : 3_000_000n;
      expect([r.fee_amount, r.net_amount]).toEqual([fee.toString(), (BigInt(r.amount) - fee).toString()]);
    }
    const nets = credited.reduce((s, r) => s + BigInt(r.net_amount!), 0n);
    expect(BigInt(Math.round(Number(await available()) * 1e6)) - before).toBe(nets);
    const entries = await sql<{ reference: string }>(`select reference from journal_entries where reference = any(?::text[])`, [
      `{${rows.map((r) => `deposit:${r.id}:credit`).join(',')}}`,
    ]);
    expect(entries.map((e) => e.reference).sort()).toEqual(credited.map((r) => `deposit:${r.id}:credit`).sort());
    expect((await events(wallets[0]!.id)).sort()).toEqual(['DEPOSIT_CONFIRMED', 'DEPOSIT_DETECTED', 'DEPOSIT_DETECTED', 'DEPOSIT_FLAGGED']);
    expect((await events(wallets[1]!.id)).sort()).toEqual(['DEPOSIT_CONFIRMED', 'DEPOSIT_CONFIRMED', 'DEPOSIT_DETECTED', 'DEPOSIT_DETECTED']);
    // One delivery per event (one endpoint) and one job per delivery.
    const [counts] = await sql<{ events: number; deliveries: number; jobs: number }>(
      `select count(distinct e.id)::int as events, count(d.id)::int as deliveries,
              (select count(*)::int from pgboss.job j where j.name = 'webhook.deliver' and (j.data->>'deliveryId')::uuid = any(array_agg(d.id))) as jobs
         from webhook_events e left join webhook_deliveries d on d.event_id = e.id
        where e.workspace_id = ? and e.payload similar to ?`,
      [t.ws.workspaceId, `%(${wallets.map((w) => w.id).join('|')})%`],
    );
    expect(counts).toEqual({ events: 160, deliveries: 160, jobs: 160 });
    const report = await t.api.infra.container.resolve(CheckLedger).execute();
    expect(report.ok).toBe(true);
  });

  it('moves a deposit whose block was reorged out to FAILED, and keeps one re-included in another block', async () => {
    const gone = await wallet();
    const back = await wallet();
    const backTx = txid();
    const transfer = { txid: backTx, logIndex: 0, asset: 'USDT_ETH' as const, from: OUTSIDE, to: back.address, amount: 80_000_000n };
    chain.mine([{ txid: txid(), logIndex: 0, asset: 'USDT_ETH', from: OUTSIDE, to: gone.address, amount: 90_000_000n }, transfer]);
    await catchUp();
    const [before] = await sql<{ id: string }>(`select id from deposits where txid = ?`, [backTx]);
    chain.rollback(1);
    chain.mine(); // the new fork's block at that height, without either transfer
    chain.mine([transfer]); // re-included one block later
    await catchUp();
    expect((await deposit(gone.id))!.status).toBe('FAILED');
    const [after] = await sql<{ id: string; status: string }>(`select id, status from deposits where txid = ?`, [backTx]);
    expect(after).toEqual({ id: before!.id, status: 'DETECTED' });
    chain.mineMany(2);
    await catchUp();
    expect((await deposit(back.id))!.status).toBe('CONFIRMED');
    expect((await deposit(gone.id))!.status).toBe('FAILED');
    expect(await events(gone.id)).toEqual(['DEPOSIT_DETECTED']);
  });

  it('reverses a credit when a reorg deeper than the confirmations removes its transfer (ADR 0021), ledger balanced', async () => {
    const w = await wallet();
    const before = await available();
    chain.mine([{ txid: txid(), logIndex: 0, asset: 'USDT_ETH', from: OUTSIDE, to: w.address, amount: 100_000_000n }]);
    chain.mineMany(3);
    await catchUp();
    expect((await deposit(w.id))!.status).toBe('CONFIRMED');
    expect(await available()).not.toBe(before);
    chain.rollback(5);
    chain.mineMany(6);
    await catchUp();
    expect((await deposit(w.id))!.status).toBe('FAILED');
    expect(await available()).toBe(before);
    const report = await t.api.infra.container.resolve(CheckLedger).execute();
    expect(report).toMatchObject({ ok: true, unbalancedEntries: [], balanceMismatches: [], negativeBalances: [] });
  });

  it('credits again a reversed deposit whose transaction comes back on chain: one credit per cycle, ledger balanced', async () => {
    const w = await wallet();
    const before = await available();
    const transfer = { txid: txid(), logIndex: 0, asset: 'USDT_ETH' as const, from: OUTSIDE, to: w.address, amount: 40_000_000n };
    chain.mine([transfer]);
    chain.mineMany(3);
    await catchUp();
    chain.rollback(5);
    chain.mineMany(6);
    await catchUp();
    expect((await deposit(w.id))!.status).toBe('FAILED');
    expect(await available()).toBe(before);
    // The same transaction is mined again (a lagging node's answer had made it look gone, or it was re-broadcast).
    chain.mine([transfer]);
    chain.mineMany(3);
    await catchUp();
    expect(await deposit(w.id)).toMatchObject({ status: 'CONFIRMED', net_amount: '37000000' });
    const units = (a: string) => { const [i, f = ''] = a.split('.'); return BigInt(i! + f.padEnd(6, '0')); };
    expect(units(await available()) - units(before)).toBe(37_000_000n);
    const entries = await sql<{ reference: string }>(
      `select reference from journal_entries where reference like (select 'deposit:' || id || ':%' from deposits where wallet_id = ?) order by created_at, reference`,
      [w.id],
    );
    expect(entries.map((e) => e.reference.split(':').slice(2).join(':'))).toEqual(['credit', 'reversal', 'credit:2']);
    // A step replayed over the same blocks credits nothing more.
    await catchUp();
    const report = await t.api.infra.container.resolve(CheckLedger).execute();
    expect(report).toMatchObject({ ok: true, unbalancedEntries: [], balanceMismatches: [], negativeBalances: [] });
  });

  it('never reverses a credit on a node that has no receipt of its re-included transfer: the rescan finds it, credited once', async () => {
    const w = await wallet();
    const before = await available();
    const transfer = { txid: txid(), logIndex: 0, asset: 'USDT_ETH' as const, from: OUTSIDE, to: w.address, amount: 20_000_000n };
    chain.mine([transfer]);
    chain.mineMany(3);
    await catchUp();
    expect((await deposit(w.id))!.status).toBe('CONFIRMED');
    chain.rollback(4);
    chain.mineMany(1);
    const moved = chain.mine([transfer]);
    chain.mineMany(3);
    chain.receiptsLag = true; // the backend asked for the receipt has not imported the new blocks
    try {
      const o = await scan.step(chain, opts());
      expect(o).toMatchObject({ kind: 'reorg', failed: 0, unproven: 1 });
      expect((await deposit(w.id))!.status).toBe('CONFIRMED');
      await catchUp();
    } finally {
      chain.receiptsLag = false;
    }
    expect(await deposit(w.id)).toMatchObject({ status: 'CONFIRMED', block_number: String(moved.number), net_amount: '17000000' });
    const units = (a: string) => { const [i, f = ''] = a.split('.'); return BigInt(i! + f.padEnd(6, '0')); };
    expect(units(await available()) - units(before)).toBe(17_000_000n);
    const entries = await sql<{ reference: string }>(`select reference from journal_entries where reference like (select 'deposit:' || id || ':%' from deposits where wallet_id = ?)`, [w.id]);
    expect(entries.map((e) => e.reference.split(':')[2])).toEqual(['credit']);
    const [mark] = await sql<{ reorged_out_at: Date | null }>(`select reorged_out_at from deposits where wallet_id = ?`, [w.id]);
    expect(mark!.reorged_out_at).toBeNull();
  });

  it('reverses a credit only once the rescan has read past its depth without its transfer, whatever the receipts said', async () => {
    const w = await wallet();
    const before = await available();
    chain.mine([{ txid: txid(), logIndex: 0, asset: 'USDT_ETH', from: OUTSIDE, to: w.address, amount: 30_000_000n }]);
    chain.mineMany(3);
    await catchUp();
    chain.rollback(5);
    chain.mineMany(2); // shorter than the stored chain: the rescan has not reached the deposit's depth
    chain.receiptsLag = true;
    try {
      expect(await scan.step(chain, opts())).toMatchObject({ kind: 'reorg', unproven: 1 });
    } finally {
      chain.receiptsLag = false;
    }
    await catchUp();
    expect((await deposit(w.id))!.status).toBe('CONFIRMED'); // not proved gone: its height is not read yet
    chain.mineMany(4);
    await catchUp();
    expect((await deposit(w.id))!.status).toBe('FAILED');
    expect(await available()).toBe(before);
    const report = await t.api.infra.container.resolve(CheckLedger).execute();
    expect(report).toMatchObject({ ok: true, unbalancedEntries: [], balanceMismatches: [], negativeBalances: [] });
  });

  it('never reverses a credit while some node URL has its transaction mined (minedOnAnyNode), whatever the scanned node shows', async () => {
    const w = await wallet();
    const transfer = { txid: txid(), logIndex: 0, asset: 'USDT_ETH' as const, from: OUTSIDE, to: w.address, amount: 11_000_000n };
    chain.mine([transfer]);
    chain.mineMany(3);
    await catchUp();
    chain.rollback(5);
    chain.mineMany(8); // the scanned node's chain no longer holds it...
    let elsewhere = true; // ...but another URL has it mined
    const pool = Object.assign(Object.create(chain) as ScriptedChain, { minedOnAnyNode: async () => elsewhere });
    for (let i = 0; i < 10 && (await scan.step(pool, opts())).kind !== 'idle'; i++);
    expect((await deposit(w.id))!.status).toBe('CONFIRMED');
    elsewhere = false; // every URL agrees it is gone
    chain.mine();
    await scan.step(pool, opts());
    expect((await deposit(w.id))!.status).toBe('FAILED');
  });

  it('keeps a credited deposit whose transaction a deeper reorg re-included, moved to its new block, credited once', async () => {
    const w = await wallet();
    const transfer = { txid: txid(), logIndex: 0, asset: 'USDT_ETH' as const, from: OUTSIDE, to: w.address, amount: 65_000_000n };
    chain.mine([transfer]);
    chain.mineMany(3);
    await catchUp();
    expect((await deposit(w.id))!.status).toBe('CONFIRMED');
    chain.rollback(4);
    chain.mineMany(2);
    const moved = chain.mine([transfer]);
    chain.mineMany(2);
    await catchUp();
    expect(await deposit(w.id)).toMatchObject({ status: 'CONFIRMED', block_number: String(moved.number), net_amount: '62000000' });
    const entries = await sql<{ reference: string }>(`select reference from journal_entries where reference like (select 'deposit:' || id || ':%' from deposits where wallet_id = ?)`, [w.id]);
    expect(entries.map((e) => e.reference.split(':')[2])).toEqual(['credit']);
  });

  it('stores where the very first scan starts at its first head read: a failing first step misses nothing', async () => {
    const bsc = new ScriptedChain('BSC_TESTNET');
    bsc.mineMany(10);
    const res = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/wallets', { chain: 'BSC', asset: 'USDT_BSC' });
    expect(res.status).toBe(201);
    const first: ScanOptions = { ...opts(), startBlock: undefined };
    // The first step reads the head (10), then the node fails.
    const failing = Object.assign(Object.create(bsc) as ScriptedChain, { blocks: () => Promise.reject(new ChainUnavailableError('BSC_TESTNET', 'unreachable', 'scripted')) });
    await expect(scan.step(failing, first)).rejects.toBeInstanceOf(ChainUnavailableError);
    // Meanwhile a deposit lands at 11, and blocks go on: the next step starts at 10, not at the new head.
    bsc.mine([{ txid: txid(), logIndex: 0, asset: 'USDT_BSC', from: OUTSIDE, to: res.body.address as string, amount: 5_000_000_000_000_000_000n }]);
    bsc.mineMany(5);
    expect(await scan.step(bsc, first)).toMatchObject({ kind: 'advanced', detected: 1 });
    expect((await deposit(res.body.id as string))!.block_number).toBe('11');
    // The lease tests below start BSC_TESTNET's cursor afresh.
    await sql(`delete from chain_blocks where network = 'BSC_TESTNET'`);
    await sql(`delete from chain_cursors where network = 'BSC_TESTNET'`);
  });

  it('reads up to trailBlocks below the head: a pool whose backends never serve the newest blocks slows it, never stalls it', async () => {
    await catchUp();
    const w = await wallet();
    chain.mine([{ txid: txid(), logIndex: 0, asset: 'USDT_ETH', from: OUTSIDE, to: w.address, amount: 12_000_000n }]);
    chain.mineMany(4);
    // Every backend asked for logs is 2 blocks behind the head the pool reports.
    const lagging = Object.assign(Object.create(chain) as ScriptedChain, {
      transfers: async (from: bigint, to: bigint, isMonitored: (k: string) => boolean) => {
        const head = (await chain.head()).number;
        if (to > head - 2n) throw new ChainUnavailableError('ETH_TESTNET', 'node_behind', `block ${to} is not served yet`);
        return chain.transfers(from, to, isMonitored);
      },
    });
    await expect(scan.step(lagging, opts())).rejects.toMatchObject({ kind: 'node_behind' });
    expect(await scan.step(lagging, { ...opts(), trailBlocks: 2 })).toMatchObject({ kind: 'advanced', detected: 1 });
    expect(await scan.step(lagging, { ...opts(), trailBlocks: 2 })).toMatchObject({ kind: 'idle' });
    expect((await deposit(w.id))!.status).toBe('CONFIRMED');
  });

  it('credits a deposit at its threshold only on the transfer the node URLs agree on (agreedTransfers)', async () => {
    await catchUp();
    const w = await wallet();
    const transfer = { txid: txid(), logIndex: 0, asset: 'USDT_ETH' as const, from: OUTSIDE, to: w.address, amount: 9_000_000n };
    chain.mine([transfer]);
    chain.mineMany(3);
    let agree = false;
    const asked: string[][] = [];
    const pool = Object.assign(Object.create(chain) as ScriptedChain, {
      agreedTransfers: async (txids: readonly string[]) => {
        asked.push([...txids]);
        if (!agree) return new Set<string>(); // one URL shows a transfer the others do not
        const [t] = await chain.transfersOf(transfer.txid, () => true);
        return new Set([agreedKey({ ...t!, blockHash: t!.block.hash })]);
      },
    });
    for (let i = 0; i < 5; i++) {
      const o = await scan.step(pool, opts());
      if (o.kind === 'idle') break;
    }
    expect((await deposit(w.id))!.status).not.toBe('CONFIRMED');
    expect(asked.flat()).toContain(transfer.txid);
    chain.mine();
    expect(await scan.step(pool, opts())).toMatchObject({ kind: 'advanced', credited: 0, unagreed: 1 });
    agree = true;
    chain.mine();
    expect(await scan.step(pool, opts())).toMatchObject({ kind: 'advanced', credited: 1, unagreed: 0 });
    expect((await deposit(w.id))!.status).toBe('CONFIRMED');
  });

  it('asks the URLs about due deposits in turns: deposits they never agree on do not keep the others waiting', async () => {
    await catchUp();
    const fake = [await wallet(), await wallet(), await wallet()];
    const real = await wallet();
    const fakeTx = fake.map(() => txid());
    fake.forEach((w, i) => chain.mine([{ txid: fakeTx[i]!, logIndex: 0, asset: 'USDT_ETH', from: OUTSIDE, to: w.address, amount: 1_000_000n }]));
    const realTx = txid();
    chain.mine([{ txid: realTx, logIndex: 0, asset: 'USDT_ETH', from: OUTSIDE, to: real.address, amount: 2_000_000n }]);
    chain.mineMany(3);
    const agreeOn = async (txids: readonly string[]) => {
      const out = new Set<string>();
      for (const id of txids) {
        if (id !== realTx) continue; // the made-up ones are never agreed
        const [t] = await chain.transfersOf(id, () => true);
        out.add(agreedKey({ ...t!, blockHash: t!.block.hash }));
      }
      return out;
    };
    const pool = Object.assign(Object.create(chain) as ScriptedChain, { agreedTransfers: agreeOn });
    // Two asked a step: the three oldest (never agreed) come first, yet the real one gets its turn.
    for (let i = 0; i < 6 && (await deposit(real.id))?.status !== 'CONFIRMED'; i++) {
      chain.mine();
      await scan.step(pool, { ...opts(), agreementChecks: 2 });
    }
    expect((await deposit(real.id))!.status).toBe('CONFIRMED');
    for (const w of fake) expect((await deposit(w.id))!.status).toMatch(/DETECTED|CONFIRMING/);
  });

  it('moves an open deposit seen again in another block (a stale node had kept it in the old one)', async () => {
    await catchUp();
    const w = await wallet();
    const transfer = { txid: txid(), logIndex: 0, asset: 'USDT_ETH' as const, from: OUTSIDE, to: w.address, amount: 4_000_000n };
    chain.mine([transfer]);
    await scan.step(chain, opts());
    const [old] = await chain.transfersOf(transfer.txid, () => true);
    chain.rollback(1);
    chain.mine();
    const moved = chain.mine([transfer]);
    // The node answering for the reorg still has it in its old block.
    const stale = Object.assign(Object.create(chain) as ScriptedChain, { transfersOf: async () => [old!] });
    expect(await scan.step(stale, opts())).toMatchObject({ kind: 'reorg', kept: 1 });
    expect((await deposit(w.id))!.block_number).toBe(String(old!.block.number));
    chain.mineMany(3);
    await catchUp();
    expect(await deposit(w.id)).toMatchObject({ status: 'CONFIRMED', block_number: String(moved.number) });
  });

  it('lets only one scanner hold a network; the other takes over when the lease runs out', async () => {
    await catchUp('worker-a');
    expect((await scan.step(chain, opts('worker-b'))).kind).toBe('not-leader');
    await sql(`update chain_cursors set lease_until = now() - interval '1 second' where network = 'ETH_TESTNET'`);
    const w = await wallet();
    chain.mine([{ txid: txid(), logIndex: 0, asset: 'USDT_ETH', from: OUTSIDE, to: w.address, amount: 55_000_000n }]);
    chain.mineMany(2);
    await catchUp('worker-b');
    expect((await deposit(w.id))!.status).toBe('CONFIRMED');
    expect((await scan.step(chain, opts('worker-a'))).kind).toBe('not-leader');
    await sql(`update chain_cursors set lease_until = now() - interval '1 second' where network = 'ETH_TESTNET'`);
  });

  it('at the tip with nothing new, reads the head alone: no claim until the head moves or a third of its lease has run', async () => {
    const clock = new FakeClock(new Date());
    const container = t.api.infra.container.createChildContainer();
    container.register(TOKENS.Clock, { useValue: clock });
    const quiet = container.resolve(ScanNetwork);
    await sql(`update chain_cursors set lease_until = now() - interval '1 second' where network = 'ETH_TESTNET'`);
    const leaseUntil = async () => (await sql<{ until: string }>(`select lease_until::text as until from chain_cursors where network = 'ETH_TESTNET'`))[0]!.until;
    for (let i = 0; i < 20 && (await quiet.step(chain, opts('worker-q'))).kind !== 'idle'; i++);
    const claimed = await leaseUntil();
    // Unchanged head: idle, and the lease row untouched (no write at every poll).
    for (let i = 0; i < 3; i++) expect(await quiet.step(chain, opts('worker-q'))).toMatchObject({ kind: 'idle' });
    expect(await leaseUntil()).toBe(claimed);
    // Another owner is never answered from what worker-q saw: it claims, and the lease is worker-q's.
    expect((await quiet.step(chain, opts('worker-r'))).kind).toBe('not-leader');
    // A third of the lease run: the step claims again (the lease renewed) though the head did not move.
    clock.advance(10_001);
    expect(await quiet.step(chain, opts('worker-q'))).toMatchObject({ kind: 'idle' });
    const renewed = await leaseUntil();
    expect(renewed > claimed).toBe(true);
    // A new block: claimed and read at once, its deposit detected.
    const w = await wallet();
    chain.mine([{ txid: txid(), logIndex: 0, asset: 'USDT_ETH', from: OUTSIDE, to: w.address, amount: 21_000_000n }]);
    expect(await quiet.step(chain, opts('worker-q'))).toMatchObject({ kind: 'advanced', detected: 1 });
    expect(await quiet.step(chain, opts('worker-q'))).toMatchObject({ kind: 'idle' });
    // A changed trail (a lagging pool) is never answered from the quiet head either.
    chain.mineMany(1);
    expect(await quiet.step(chain, { ...opts('worker-q'), trailBlocks: 1 })).toMatchObject({ kind: 'idle' });
    expect(await quiet.step(chain, opts('worker-q'))).toMatchObject({ kind: 'advanced' });
    await sql(`update chain_cursors set lease_until = now() - interval '1 second' where network = 'ETH_TESTNET'`);
  });

  it('moves the cursor after its lease ran out during a long step unless another scanner took the network over', async () => {
    const uow = t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const expire = () => sql(`update chain_cursors set lease_until = now() - interval '1 second' where network = 'BSC_TESTNET'`);
    const a = await uow.run((tx) => tx.scanState.claim('BSC_TESTNET', 'slow-a', 30));
    expect(a).toEqual({ nextBlock: null, recent: new Map() });
    await expire();
    expect(await uow.run((tx) => tx.scanState.advance('BSC_TESTNET', 'slow-a', null, 11n, [], 64, 30))).toBe(true);
    await expire();
    expect(await uow.run((tx) => tx.scanState.claim('BSC_TESTNET', 'fast-b', 30))).toMatchObject({ nextBlock: 11n });
    expect(await uow.run((tx) => tx.scanState.advance('BSC_TESTNET', 'slow-a', 11n, 21n, [], 64, 30))).toBe(false);
    expect(await uow.run((tx) => tx.scanState.rewind('BSC_TESTNET', 'slow-a', 5n))).toBe(false);
    expect(await uow.run((tx) => tx.scanState.advance('BSC_TESTNET', 'fast-b', 11n, 21n, [], 64, 5))).toBe(true);
    // Each move renews the lease for the scanner's SCAN_LEASE_SECONDS, not a fixed 30 s: another worker takes over that soon.
    const [lease] = await sql<{ left: string }>(`select extract(epoch from lease_until - now())::text as left from chain_cursors where network = 'BSC_TESTNET'`);
    expect(Number(lease!.left)).toBeGreaterThan(3);
    expect(Number(lease!.left)).toBeLessThanOrEqual(5);
  });

  it('keeps its cursor while the node is down and catches up without skipping a block', async () => {
    await catchUp();
    const [{ next_block: cursor }] = (await sql<{ next_block: string }>(`select next_block::text from chain_cursors where network = 'ETH_TESTNET'`)) as [{ next_block: string }];
    chain.down = true;
    await expect(scan.step(chain, opts())).rejects.toBeInstanceOf(ChainUnavailableError);
    const wallets = [await wallet(), await wallet(), await wallet()];
    chain.down = false;
    for (const w of wallets) chain.mine([{ txid: txid(), logIndex: 0, asset: 'USDT_ETH', from: OUTSIDE, to: w.address, amount: 51_000_000n }]);
    chain.down = true;
    await expect(scan.step(chain, opts())).rejects.toBeInstanceOf(ChainUnavailableError);
    const [{ next_block: still }] = (await sql<{ next_block: string }>(`select next_block::text from chain_cursors where network = 'ETH_TESTNET'`)) as [{ next_block: string }];
    expect(still).toBe(cursor);
    chain.down = false;
    chain.mineMany(3);
    await catchUp();
    for (const w of wallets) expect((await deposit(w.id))!.status).toBe('CONFIRMED');
  });
});
