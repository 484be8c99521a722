// ops ledger reconcile [--chain NETWORK] and ops payouts holds | resume --chain NETWORK
// (docs/operations.md#reconciliation-with-the-chain): the books against the chain,
// and the payouts a difference holds until an operator looks.
import { z } from 'zod';
import { PayoutHolds } from '../../application/ledger/payout-holds.js';
import { ReconcileChain, type ReconcileOptions, type ReconcileReport } from '../../application/ledger/reconcile-chain.js';
import { TOKENS } from '../../application/tokens.js';
import type { BalanceReader, ChainSender } from '../../domain/transfers/ports.js';
import { patiently } from '../chains/url-pool.js';
import { defineCommand, progressOf, type OpsCommand } from './command.js';
import { networkFlag } from './network-flag.js';

const reportJson = (r: ReconcileReport) => ({
  network: r.network,
  block: r.block.toString(),
  ok: r.ok,
  held: r.held,
  assets: r.assets.map((a) => ({
    asset: a.asset,
    expected: a.expected.toString(),
    on_chain: a.onChain.toString(),
    difference: a.difference.toString(),
    verdict: a.verdict,
    acknowledged: a.acknowledged ?? false,
  })),
  involved: r.involved.map((i) => ({
    kind: i.kind,
    id: i.id,
    transfer_id: i.transferId ?? null,
    txid: i.txid,
    asset: i.asset,
    amount: i.amount.toString(),
    why: i.why,
    acknowledged: i.acknowledged ?? false,
  })),
});

const reconcile = defineCommand({
  path: ['ledger', 'reconcile'],
  readsNodes: true,
  slow: true,
  summary: 'The books against the chain: per network and asset what the ledger says the service holds against the chain at a safe depth (exit 1 on a deficit) [--chain NETWORK]',
  flags: { chain: { type: 'string' } },
  input: (mode) => z.object({ chain: networkFlag(mode.side).optional() }),
  async run(ctx, input) {
    const progress = progressOf(ctx);
    const senders = ctx
      .resolve<BalanceReader[]>(TOKENS.BalanceReaders)
      .filter((r): r is ChainSender => typeof (r as Partial<ChainSender>).sentReceiptOnEveryNode === 'function')
      .filter((r) => input.chain === undefined || r.network === input.chain);
    const opts = ctx.resolve<ReconcileOptions>(TOKENS.ReconcileOptions);
    const networks = [];
    // A passing 429, dropped connection or backend behind is waited out (0.5, 1 and 2 s), as ops chains check does.
    for (const [i, s] of senders.entries()) {
      progress(`ledger reconcile: ${s.network} (${i + 1} of ${senders.length})`);
      networks.push(reportJson(await patiently(() => ctx.resolve(ReconcileChain).execute(s, opts))));
    }
    // Nothing reconciled is not "the chain agrees": a network without a node (or none at all) is said so, exit 1.
    return { ok: networks.length > 0 && networks.every((n) => n.ok), networks };
  },
  describe(result) {
    const networks = result.networks as ReturnType<typeof reportJson>[];
    if (networks.length === 0) return 'No network has a node to reconcile with (set <NETWORK>_RPC_URL).';
    const lines: string[] = [];
    for (const n of networks) {
      lines.push(`${n.network} at block ${n.block}: ${n.ok ? 'the chain agrees with the books' : 'DIFFERENCE'}${n.held ? ` (payouts held: ${n.held})` : ''}`);
      for (const a of n.assets) {
        // A deficit at deposit addresses while the totals show none or a surplus: the addresses are named below.
        const short = n.involved.filter((i) => i.kind === 'address' && i.asset === a.asset).length;
        const figure = a.verdict === 'ok' ? '' : a.verdict === 'deficit' && !a.difference.startsWith('-') ? ` at ${short} deposit address(es) (totals ${a.difference})` : ` ${a.difference}`;
        lines.push(`  ${a.asset.padEnd(10)} books ${a.expected.padStart(24)}  chain ${a.on_chain.padStart(24)}  ${a.verdict}${figure}${a.acknowledged ? ' (acknowledged at the last payouts resume)' : ''}`);
      }
      for (const i of n.involved) lines.push(`  ${i.kind} ${i.id}: ${i.why}${i.acknowledged ? ' (acknowledged at the last payouts resume)' : ''}`);
    }
    return lines.join('\n');
  },
});

const holds = defineCommand({
  path: ['payouts', 'holds'],
  summary: 'Networks whose payouts wait for an operator after a difference with the chain, and why',
  flags: {},
  input: z.object({}),
  async run(ctx) {
    const list = await ctx.resolve(PayoutHolds).list();
    return { holds: list.map((h) => ({ network: h.network, reason: h.reason, held_at: h.heldAt.toISOString() })) };
  },
  describe(result) {
    const list = result.holds as { network: string; reason: string; held_at: string }[];
    return list.length === 0 ? 'No payouts are held.' : list.map((h) => `${h.network}: held since ${h.held_at}: ${h.reason}`).join('\n');
  },
});

const resume = defineCommand({
  path: ['payouts', 'resume'],
  summary: "Let a network's payouts go on after a difference with the chain was looked at (--chain NETWORK)",
  flags: { chain: { type: 'string' } },
  input: (mode) => z.object({ chain: networkFlag(mode.side) }),
  async run(ctx, input) {
    const released = await ctx.resolve(PayoutHolds).resume(input.chain);
    return { chain: input.chain, resumed: released };
  },
  describe(result) {
    return result.resumed ? `${String(result.chain)}: payouts resume.` : `${String(result.chain)}: payouts were not held.`;
  },
});

export const RECONCILE_COMMANDS: OpsCommand[] = [reconcile, holds, resume];
