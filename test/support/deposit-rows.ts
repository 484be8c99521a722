// A CONFIRMED deposit of 60 USDT_ETH (fee 3, net 57) written straight into the
// table, for application tests that need one credited without a chain.
import { randomUUID } from 'node:crypto';

type Sql = (text: string, params?: unknown[]) => Promise<unknown>;

export async function insertConfirmedUsdtDeposit(sql: Sql, workspaceId: string, wallet: { id: string; address: string }): Promise<void> {
  await sql(
    `insert into deposits (id, workspace_id, wallet_id, network, asset, txid, log_index, from_address, to_address, chain_amount, amount,
       block_number, block_hash, status, confirmations, required_confirmations, fee_amount, net_amount, applied_rate_ppm, applied_min_fee,
       detected_at, confirmed_at, created_at, updated_at)
     values (?, ?, ?, 'ETH_TESTNET', 'USDT_ETH', ?, 0, ?, ?, 60000000, 60000000, 1, '0x00', 'CONFIRMED', 2, 2, 3000000, 57000000, 9000, 3000000,
       now(), now(), now(), now())`,
    [randomUUID(), workspaceId, wallet.id, `0x${randomUUID().replace(/-/g, '').padEnd(64, '0')}`, wallet.address, wallet.address],
  );
}
