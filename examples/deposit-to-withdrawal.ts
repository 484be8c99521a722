// From a new customer to money leaving custody, against the local sandbox:
// customer → wallet → faucet deposit → credited and swept → withdrawal to the
// sandbox's outside account → CONFIRMED. One line per step.
//
//   node --import tsx examples/deposit-to-withdrawal.ts
//
// The faucet's 100 USDT_ETH are at least the sweep minimum (50), so the
// deposit is swept into the treasury, which pays withdrawals; the 20
// withdrawn (fee 5, net 15) are then covered by both the balance (97 after
// the deposit fee) and the treasury. Each run makes a new customer and wallet.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Deposit, WalletClient } from '../src/sdk/index.js';
import { fail, outsideAddress, sandboxClient, say } from './sandbox-workspace.js';

const DEPOSIT = '100';
const WITHDRAWAL = '20';

/** The wallet's first deposit, once the scanner has seen it: a list read a second apart, never twice in the same second. */
async function firstDeposit(client: WalletClient, walletId: string, timeoutMs = 60_000): Promise<Deposit> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for await (const deposit of client.deposits.list({ wallet_id: walletId })) return deposit;
    if (Date.now() > deadline) throw new Error(`no deposit to wallet ${walletId} within ${timeoutMs} ms`);
    await sleep(1_000);
  }
}

async function balanceLine(client: WalletClient): Promise<string> {
  const [b] = (await client.getBalances({ chain: 'ETH', asset: 'USDT_ETH' })).data;
  return b ? `balance ${b.asset} on ${b.chain}: available ${b.available}, locked ${b.locked}` : 'balance USDT_ETH: none yet';
}

async function main(): Promise<void> {
  const client = sandboxClient();
  const destination = outsideAddress('ETH_TESTNET');
  const run = randomUUID();

  const customer = await client.createCustomer({ external_ref: `example-${run}` }, { idempotencyKey: `customer-${run}` });
  say(`customer ${customer.id} (external_ref ${customer.external_ref})`);

  const wallet = await client.createWallet({ chain: 'ETH', asset: 'USDT_ETH', customer_id: customer.id }, { idempotencyKey: `wallet-${run}` });
  say(`wallet ${wallet.id} on ${wallet.chain}: ${wallet.address}`);

  const drip = await client.requestDrip({ chain: 'ETH', address: wallet.address, assets: [{ symbol: 'USDT_ETH', amount: DEPOSIT }] }, { idempotencyKey: `drip-${run}` });
  say(`faucet drip ${drip.drip_id}: ${drip.items.map((i) => `${i.amount} ${i.asset}`).join(', ')} ${drip.status}`);
  await client.waitFor(drip, 'COMPLETED', { timeoutMs: 120_000 });
  say(`faucet drip ${drip.drip_id}: COMPLETED on chain`);

  const arrived = await firstDeposit(client, wallet.id);
  const credited = await client.waitFor(arrived, 'CONFIRMED', { timeoutMs: 120_000 });
  say(`deposit ${credited.id} of ${credited.amount} ${credited.asset}: credited ${credited.fee_record?.net_amount} after a fee of ${credited.fee_record?.fee_amount}`);
  const swept = await client.waitFor(credited, 'SWEPT', { timeoutMs: 180_000 });
  say(`deposit ${swept.id}: SWEPT into the treasury at ${swept.swept_at}`);
  say(await balanceLine(client));

  const created = await client.createWithdrawal(
    { chain: 'ETH', asset: 'USDT_ETH', amount: WITHDRAWAL, destination_address: destination },
    { idempotencyKey: `withdrawal-${run}` },
  );
  say(`withdrawal ${created.id} of ${created.amount} ${created.asset} to ${destination}: ${created.status}, fee ${created.fee}, net ${created.net_amount}`);
  const confirmed = await client.waitFor(created, 'CONFIRMED', { timeoutMs: 180_000 });
  say(`withdrawal ${confirmed.id}: CONFIRMED in ${confirmed.txid}`);
  say(await balanceLine(client));
}

main().catch(fail);
