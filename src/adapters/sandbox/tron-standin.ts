// The local TRON_TESTNET of the sandbox and the tests (ADR 0023): no TRON node
// is installable here, so this serves the subset of a java-tron full node's
// HTTP API that the TRON adapter and tronweb use, backed by an anvil that
// holds the state. TRON addresses are the same 20 bytes as the anvil accounts
// (41… ↔ 0x…); TRX balances are the accounts' native balances in sun (the
// backing node charges no gas); TRC-20 tokens are the sandbox token contract.
// A broadcast transaction is checked as a TRON node checks it before it runs:
// txID = sha256(raw_data), the JSON agrees with raw_data_hex, the signature
// recovers the owner of the decoded raw_data (never the JSON's word), the
// reference block is a recent block of this chain and the transaction has
// not expired or been seen. Blocks are anvil's (one a second), their ids the
// block number followed by 24 bytes of anvil's hash, so rolling anvil back
// (`rollback`) rolls this chain back. Never on the production path.
//
// Resources follow TRON's Stake 2.0 rules (tron-resources.ts): an account
// stakes TRX for energy (FreezeBalanceV2), delegates it (DelegateResource),
// takes it back (UnDelegateResource), unstakes it (UnfreezeBalanceV2) and,
// after the unfreeze delay, withdraws it (WithdrawExpireUnfreeze). A contract
// call spends the caller's staked energy first and burns TRX at the chain's
// energy price for the rest, all of it capped by its fee_limit; the call runs
// out of energy (included, failed, the fee burnt) when the limit or the
// balance does not cover it. A transaction's bytes use the owner's free
// bandwidth (600 bytes a window) when it covers them all, else are burnt; the
// creation of an account never activated is paid by the sender of the TRX
// that creates it. An account that does not exist cannot call a contract. The
// burnt TRX is the transaction info's `fee`. Staked TRX sits at a vault
// address of the backing node; the resource state is kept beside the
// transactions' journal and is not undone by `rollback`.
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { utils as tronUtils } from 'tronweb';
import { encodeErrorResult, keccak256, recoverAddress, toBytes, type Hex } from 'viem';
import { z } from 'zod';
import { tronJson } from '../chains/tron-chain.js';
import { exactInt } from '../chains/tron-transactions.js';
import { rpc, startAnvil, type RunningAnvil } from './anvil.js';
import { freePort } from './local-ports.js';
import { evmOf, requestAddress, shownAddress, strip0x, tronHex } from './tron-addresses.js';
import { fromJournal, noCost, toJournal, type Cost } from './tron-costs.js';
import { MAINNET_LIKE_RULES, TronResources, chargeCall } from './tron-resources.js';
import { STAKE_BUILD_ROUTES, STAKE_READ_ROUTES, STAKE_TYPES, accountStakeFields, buildRefusal, planStake, shownValue, stakeValue, type StakeType } from './tron-stake.js';

const { txJsonToPb, txPbToRawDataHex } = tronUtils.transaction;
const { deserializeTransaction } = tronUtils.deserializeTx;
/** java-tron's Transaction.raw protobuf, which tronweb's utilities register on globalThis. */
const RawTransaction = (globalThis as unknown as { TronWebProto: { Transaction: { raw: { deserializeBinary(b: Uint8Array): { getContractList(): unknown[] } } } } })
  .TronWebProto.Transaction.raw;

/** Most blocks of one getblockbylimitnext call, as on java-tron. */
const MAX_BLOCK_RANGE = 100;
/** How far back a reference block may be (ref_block_bytes is the low 16 bits of its number). */
const TAPOS_WINDOW = 65_536n;
/** Gas given to each executed contract call on the backing node. */
const CALL_GAS = 3_000_000n;
/** Gas that runs a call out of gas at once on the backing node (the intrinsic cost and a little). */
const OUT_OF_ENERGY_GAS = 30_000n;
/** The chain parameters of the stand-in (sun): near TRON mainnet's. */
const ENERGY_FEE = 210n;
const BANDWIDTH_FEE = 1_000n;
const CREATE_ACCOUNT_FEE = 100_000n;
const CREATE_NEW_ACCOUNT_FEE = 1_000_000n;
/** java-tron's allowance for a transaction's result, counted in its bandwidth. */
const RESULT_BYTES = 64n;
/** Error(string) with `reason`, ABI-encoded: what a reverting call returns. */
const revertData = (reason: string): Hex =>
  encodeErrorResult({ abi: [{ type: 'error', name: 'Error', inputs: [{ type: 'string', name: 'message' }] }], errorName: 'Error', args: [reason] });

/** Energy charged for a call whose estimate fails (it reverts). */
const REVERT_ENERGY = 30_000n;
/**
 * Where burnt TRX goes on the backing node: each burn is a transfer there,
 * queued right before the transaction that pays it (never a read-modify-write
 * of a balance, which a block mined in between would undo). Transfers to it
 * are the stand-in's bookkeeping and are not shown as TRON transactions.
 */
const BURN: Hex = '0x000000000000000000000000000000000000dead';
/**
 * Where staked TRX sits on the backing node. A Stake 2.0 transaction is one
 * backing transaction from its owner to the vault (carrying the stake, or
 * nothing), shown as that contract; what the vault pays back (withdrawn
 * unfreezings) is bookkeeping, queued after it and not shown, like the burns.
 */
const VAULT: Hex = '0x000000000000000000000000000000000000beef';
const SUPPORTED = ['TriggerSmartContract', 'TransferContract', ...STAKE_TYPES] as const;
type ContractType = (typeof SUPPORTED)[number];
/** TRC-20 transfer(address,uint256): charged mainnet-like energy, not the backing node's gas. */
const TRANSFER_SELECTOR = 'a9059cbb';
const BALANCE_OF_SELECTOR = '70a08231';
/** A USDT transfer's energy on TRON mainnet: to a holder, and to an address holding none (a new storage slot). */
const TRANSFER_ENERGY = 65_000n;
const FIRST_HOLDER_TRANSFER_ENERGY = 130_000n;

interface EvmTx {
  hash: Hex;
  from: Hex;
  to: Hex | null;
  value: Hex;
  input: Hex;
  nonce: Hex;
}
interface EvmBlock {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
  transactionsRoot: Hex;
  miner: Hex;
  transactions: EvmTx[];
}
interface EvmLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
}
interface EvmReceipt {
  transactionHash: Hex;
  status: Hex;
  gasUsed: Hex;
  contractAddress: Hex | null;
  logs: EvmLog[];
}

/** A TRON transaction as the HTTP API shows it. */
export interface TronTransaction {
  txID: string;
  raw_data: Record<string, unknown>;
  raw_data_hex: string;
  signature?: string[];
  visible?: boolean;
}

const sha256Hex = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
const hexText = (s: string) => Buffer.from(s, 'utf8').toString('hex');

/** The TRON block id: the number in 8 bytes, then the last 24 bytes of the backing block's hash. */
export const blockIdOf = (number: bigint, evmHash: string) => number.toString(16).padStart(16, '0') + strip0x(evmHash).slice(16);

export { tronJson } from '../chains/tron-chain.js';

/** A java-tron style refusal of a broadcast (the message hex-encoded, as the node sends it). */
const refusal = (code: string, txid: string, message: string) => ({ result: false, code, txid, message: hexText(message) });

const broadcastBody = z.object({
  txID: z.string().regex(/^[0-9a-fA-F]{64}$/),
  raw_data: z.record(z.string(), z.unknown()),
  raw_data_hex: z.string().regex(/^([0-9a-fA-F]{2})+$/).max(200_000),
  signature: z.array(z.string().regex(/^[0-9a-fA-F]{130}$/)).min(1).max(5),
  visible: z.boolean().optional(),
});

export interface TronStandinOptions {
  /** The HTTP API's port. */
  port: number;
  host?: string;
  /** Where the backing node keeps its state between runs (and, beside it, the TRON transactions it ran); none keeps both in memory. */
  stateFile?: string;
  /** Seconds between blocks; null mines only when asked (the tests). */
  blockTimeSeconds?: number | null;
  /** Seconds over which used energy and bandwidth come back (TRON: 24 h); shorter for the sandbox and tests. */
  resourceWindowSeconds?: number;
  /** Seconds unstaked TRX waits before it can be withdrawn (TRON: 14 days). */
  unfreezeDelaySeconds?: number;
  /** The network's energy per window (TRON mainnet: 180,000,000,000). */
  totalEnergyCurrentLimit?: bigint;
  /** Whole TRX staked for energy by "the rest of the network" (default: 1 staked TRX gives 10 energy a window). */
  baselineEnergyWeight?: bigint;
}

export interface RunningTronStandin {
  /** The TRON HTTP API (what a TRON full node's URL would be). */
  url: string;
  port: number;
  /** The backing node (for the tests' cheat codes: mining, balances). */
  anvil: RunningAnvil;
  /** Replaces the last `depth` blocks with empty ones: their transactions leave the chain, as in a TRON fork switch. */
  rollback(depth: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startTronStandin(opts: TronStandinOptions): Promise<RunningTronStandin> {
  const host = opts.host ?? '127.0.0.1';
  const anvil = await startAnvil({
    port: await freePort(),
    chainId: 3_448_148_188, // TRON Nile's chain id
    host: '127.0.0.1',
    blockTimeSeconds: opts.blockTimeSeconds === undefined ? 1 : opts.blockTimeSeconds,
    stateFile: opts.stateFile,
    // No gas is charged (TRX balances stay exact); any account may send (each transaction's signature is checked here).
    args: ['--base-fee', '0', '--gas-price', '0', '--disable-min-priority-fee', '--auto-impersonate', '--balance', '0', ...(opts.stateFile ? ['--state-interval', '10'] : [])],
  });
  const seconds = (v: number | undefined, fallback: bigint, name: string) => {
    if (v === undefined) return fallback;
    if (!Number.isSafeInteger(v) || v <= 0) throw new Error(`${name} must be a positive whole number of seconds`);
    return BigInt(v) * 1000n;
  };
  const resources = new TronResources(
    {
      ...MAINNET_LIKE_RULES,
      windowMs: seconds(opts.resourceWindowSeconds, MAINNET_LIKE_RULES.windowMs, 'resourceWindowSeconds'),
      unfreezeDelayMs: seconds(opts.unfreezeDelaySeconds, MAINNET_LIKE_RULES.unfreezeDelayMs, 'unfreezeDelaySeconds'),
      totalEnergyCurrentLimit: opts.totalEnergyCurrentLimit ?? MAINNET_LIKE_RULES.totalEnergyCurrentLimit,
      baselineEnergyWeight: opts.baselineEnergyWeight ?? MAINNET_LIKE_RULES.baselineEnergyWeight,
    },
    opts.stateFile ? `${opts.stateFile}.resources.json` : null,
  );
  const standin = new TronStandin(anvil.rpcUrl, opts.stateFile ? `${opts.stateFile}.transactions.jsonl` : null, resources);
  const server = createServer((req, res) => void standin.handle(req, res));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port, host, () => resolve());
    });
  } catch (err) {
    await anvil.stop();
    throw new Error(`port ${opts.port} on ${host} is already in use (${(err as Error).message})`, { cause: err });
  }
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${opts.port}`;
  return {
    url,
    port: opts.port,
    anvil,
    rollback: async (depth) => {
      await rpc(anvil.rpcUrl, 'anvil_reorg', [depth, []]);
    },
    stop: async () => {
      await new Promise<void>((r) => closeServer(server, r));
      await anvil.stop();
    },
  };
}

function closeServer(server: Server, done: () => void) {
  server.close(() => done());
  server.closeAllConnections();
}

class TronStandin {
  /** backing tx hash → the TRON transaction it ran, and TRON txID → backing hash. */
  private readonly byHash = new Map<string, TronTransaction>();
  private readonly hashById = new Map<string, Hex>();
  /** What each TRON transaction burnt, by txID. */
  private readonly costs = new Map<string, Cost>();
  /** Broadcasts run one at a time: a balance is read, charged and spent without another broadcast in between. */
  private running: Promise<unknown> = Promise.resolve();
  /** txIDs being checked or run right now: a second broadcast of one is a replay, however close behind. */
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly node: string,
    private readonly journal: string | null,
    private readonly resources: TronResources,
  ) {
    if (!journal) return;
    let text: string;
    try {
      text = readFileSync(journal, 'utf8');
    } catch {
      return; // a fresh chain
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      const { hash, tx, cost } = JSON.parse(line) as { hash: Hex; tx: TronTransaction; cost?: Record<keyof Cost, string> };
      this.remember(hash, tx, cost && fromJournal(cost));
    }
  }

  private remember(hash: Hex, tx: TronTransaction, cost?: Cost) {
    this.byHash.set(hash.toLowerCase(), tx);
    this.hashById.set(tx.txID.toLowerCase(), hash.toLowerCase() as Hex);
    if (cost) this.costs.set(tx.txID.toLowerCase(), cost);
  }

  async handle(req: IncomingMessage, res: ServerResponse) {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(tronJson(body));
    };
    try {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const c of req) {
        size += (c as Buffer).length;
        if (size > 1_000_000) return send(413, { Error: 'request too large' });
        chunks.push(c as Buffer);
      }
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> = {};
      if (text.trim()) {
        const parsed: unknown = JSON.parse(text);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
      }
      const path = (req.url ?? '/').split('?')[0]!.replace(/^\/(wallet|walletsolidity)\//, '/');
      const build = STAKE_BUILD_ROUTES[path.slice(1)];
      const read = STAKE_READ_ROUTES[path.slice(1)];
      const exists = async (a: string) => (await this.account(a)) !== null;
      const route: Route | undefined = build ? (b) => this.buildStake(build, b) : read ? (b) => read(this.resources, b, exists) : ROUTES[path];
      if (!route) return send(404, { Error: `not served by the sandbox stand-in: ${req.url}` });
      send(200, await route.call(this, body));
    } catch (err) {
      send(200, { Error: (err as Error).message });
    }
  }

  private call<T>(method: string, params: unknown[] = []) {
    return rpc<T>(this.node, method, params);
  }

  // ---- reading -------------------------------------------------------------

  private async evmBlock(tag: bigint | 'latest'): Promise<EvmBlock | null> {
    return this.call<EvmBlock | null>('eth_getBlockByNumber', [tag === 'latest' ? 'latest' : `0x${tag.toString(16)}`, true]);
  }

  private async receipts(block: EvmBlock): Promise<Map<string, EvmReceipt>> {
    if (block.transactions.length === 0) return new Map();
    const list = await this.call<EvmReceipt[]>('eth_getBlockReceipts', [block.hash]);
    return new Map(list.map((r) => [r.transactionHash.toLowerCase(), r]));
  }

  /**
   * The block's transactions as TRON shows them: burns and the vault's payments are the stand-in's
   * bookkeeping; a transaction to the vault is shown only as the Stake 2.0 transaction it carried.
   */
  private shownTransactions(block: EvmBlock): EvmTx[] {
    return block.transactions.filter((tx) => {
      const to = tx.to?.toLowerCase();
      if (to === BURN || tx.from.toLowerCase() === VAULT) return false;
      return to !== VAULT || this.byHash.has(tx.hash.toLowerCase());
    });
  }

  /** The TRON transaction a backing transaction ran, or one described from it (the sandbox's own set-up transactions). */
  private transactionOf(tx: EvmTx, receipt: EvmReceipt | undefined): TronTransaction & { ret: { contractRet: string }[] } {
    const ret = [{ contractRet: receipt?.status === '0x1' ? 'SUCCESS' : 'REVERT' }];
    const known = this.byHash.get(tx.hash.toLowerCase());
    if (known) return { ...known, ret };
    const owner_address = tronHex(tx.from);
    const contract = !tx.to
      ? { type: 'CreateSmartContract', parameter: { value: { owner_address }, type_url: 'type.googleapis.com/protocol.CreateSmartContract' } }
      : tx.input === '0x'
        ? { type: 'TransferContract', parameter: { value: { owner_address, to_address: tronHex(tx.to), amount: BigInt(tx.value) }, type_url: 'type.googleapis.com/protocol.TransferContract' } }
        : {
            type: 'TriggerSmartContract',
            parameter: { value: { owner_address, contract_address: tronHex(tx.to), data: strip0x(tx.input) }, type_url: 'type.googleapis.com/protocol.TriggerSmartContract' },
          };
    return { txID: strip0x(tx.hash), raw_data: { contract: [contract] }, raw_data_hex: '', signature: [], ret };
  }

  private async tronBlock(block: EvmBlock, detail = true) {
    const number = BigInt(block.number);
    const receipts = detail ? await this.receipts(block) : new Map<string, EvmReceipt>();
    const out: Record<string, unknown> = {
      blockID: blockIdOf(number, block.hash),
      block_header: {
        raw_data: {
          number: Number(number),
          txTrieRoot: strip0x(block.transactionsRoot),
          witness_address: tronHex(block.miner),
          parentHash: number === 0n ? '0'.repeat(64) : blockIdOf(number - 1n, block.parentHash),
          version: 31,
          timestamp: Number(BigInt(block.timestamp)) * 1000,
        },
        witness_signature: '',
      },
    };
    const shown = this.shownTransactions(block);
    if (detail && shown.length > 0) out.transactions = shown.map((tx) => this.transactionOf(tx, receipts.get(tx.hash.toLowerCase())));
    return out;
  }

  private async blockFromRequest(value: unknown): Promise<EvmBlock | null> {
    // A block id: the number in its first 8 bytes, and the rest must match (otherwise that block left the chain).
    if (typeof value !== 'string' || !/^[0-9a-fA-F]{64}$/.test(value)) return null;
    const block = await this.evmBlock(BigInt(`0x${value.slice(0, 16)}`));
    return block && blockIdOf(BigInt(block.number), block.hash) === value.toLowerCase() ? block : null;
  }

  private async info(tx: EvmTx, receipt: EvmReceipt, block: EvmBlock) {
    const t = this.transactionOf(tx, receipt);
    const type = (t.raw_data.contract as { type: string }[])[0]!.type;
    const ok = receipt.status === '0x1';
    const cost = this.costs.get(t.txID.toLowerCase());
    const energy = cost?.energy_usage_total ?? BigInt(receipt.gasUsed);
    const result = ok ? 'SUCCESS' : (cost?.result ?? 'REVERT');
    // As java-tron's TransactionInfo: zero fields are left out; a system contract's receipt has no energy.
    const nonZero = (o: Record<string, bigint>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== 0n));
    const net = nonZero({ net_usage: cost?.net_usage ?? 0n, net_fee: cost?.net_fee ?? 0n });
    return {
      id: t.txID,
      ...nonZero({ fee: cost?.fee ?? 0n }),
      blockNumber: Number(BigInt(block.number)),
      blockTimeStamp: Number(BigInt(block.timestamp)) * 1000,
      contractResult: [''],
      ...(type === 'TriggerSmartContract' && tx.to ? { contract_address: tronHex(tx.to) } : {}),
      ...(cost?.withdraw_expire_amount ? { withdraw_expire_amount: cost.withdraw_expire_amount } : {}),
      receipt:
        type !== 'TriggerSmartContract'
          ? net
          : { ...nonZero({ energy_usage: cost?.energy_usage ?? 0n, energy_fee: cost?.energy_fee ?? 0n, energy_usage_total: energy }), ...net, result },
      ...(receipt.logs.length ? { log: receipt.logs.map((l) => ({ address: strip0x(l.address).toLowerCase(), topics: l.topics.map(strip0x), data: strip0x(l.data) })) } : {}),
      ...(ok ? {} : { result: 'FAILED', resMessage: hexText('REVERT opcode executed') }),
    };
  }

  private async byTxid(value: unknown): Promise<{ tx: EvmTx; block: EvmBlock; receipt: EvmReceipt } | null> {
    if (typeof value !== 'string' || !/^(0x)?[0-9a-fA-F]{64}$/.test(value)) return null;
    const id = strip0x(value).toLowerCase();
    const hash = this.hashById.get(id) ?? (`0x${id}` as Hex);
    const receipt = await this.call<(EvmReceipt & { blockNumber: Hex | null }) | null>('eth_getTransactionReceipt', [hash]);
    if (!receipt?.blockNumber) return null;
    const block = await this.evmBlock(BigInt(receipt.blockNumber));
    const tx = block?.transactions.find((t) => t.hash.toLowerCase() === hash);
    return block && tx ? { tx, block, receipt } : null;
  }

  async getnowblock() {
    return this.tronBlock((await this.evmBlock('latest'))!);
  }

  async getblock(body: Record<string, unknown>) {
    const detail = body.detail === true;
    const which = body.id_or_num;
    let block: EvmBlock | null;
    if (which === undefined || which === null || which === '') block = await this.evmBlock('latest');
    else if (typeof which === 'string' && /^\d{1,15}$/.test(which)) block = await this.evmBlock(BigInt(which));
    else block = await this.blockFromRequest(which);
    return block ? this.tronBlock(block, detail) : {};
  }

  async getblockbynum(body: Record<string, unknown>) {
    if (!Number.isSafeInteger(body.num) || (body.num as number) < 0) return {};
    const block = await this.evmBlock(BigInt(body.num as number));
    return block ? this.tronBlock(block) : {};
  }

  async getblockbyid(body: Record<string, unknown>) {
    const block = await this.blockFromRequest(body.value);
    return block ? this.tronBlock(block) : {};
  }

  async getblockbylimitnext(body: Record<string, unknown>) {
    const { startNum, endNum } = body;
    if (!Number.isSafeInteger(startNum) || !Number.isSafeInteger(endNum)) return { Error: 'startNum and endNum are required' };
    const from = startNum as number;
    const to = Math.min(endNum as number, from + MAX_BLOCK_RANGE);
    const blocks: unknown[] = [];
    for (let n = from; n < to; n++) {
      const block = await this.evmBlock(BigInt(n));
      if (!block) break;
      blocks.push(await this.tronBlock(block));
    }
    return blocks.length ? { block: blocks } : {};
  }

  async gettransactionbyid(body: Record<string, unknown>) {
    const found = await this.byTxid(body.value);
    return found ? this.transactionOf(found.tx, found.receipt) : {};
  }

  async gettransactioninfobyid(body: Record<string, unknown>) {
    const found = await this.byTxid(body.value);
    return found ? this.info(found.tx, found.receipt, found.block) : {};
  }

  async gettransactioninfobyblocknum(body: Record<string, unknown>) {
    if (!Number.isSafeInteger(body.num) || (body.num as number) < 0) return [];
    const block = await this.evmBlock(BigInt(body.num as number));
    if (!block) return [];
    const receipts = await this.receipts(block);
    return Promise.all(this.shownTransactions(block).map((tx) => this.info(tx, receipts.get(tx.hash.toLowerCase())!, block)));
  }

  /**
   * The account's TRX, or null when it was never activated (no TRX ever, no
   * transaction sent): as of the last block, or with what is queued for the
   * next one (`pending`: what a broadcast is checked against).
   */
  private async account(address: string, tag: 'latest' | 'pending' = 'latest'): Promise<bigint | null> {
    const [balance, nonce] = await Promise.all([
      this.call<Hex>('eth_getBalance', [evmOf(address), tag]),
      this.call<Hex>('eth_getTransactionCount', [evmOf(address), tag]),
    ]);
    return BigInt(balance) === 0n && BigInt(nonce) === 0n ? null : BigInt(balance);
  }

  async getaccount(body: Record<string, unknown>) {
    const address = requestAddress(body.address, body.visible === true);
    if (!address) return { Error: 'invalid address' };
    const balance = await this.account(address);
    if (balance === null) return {}; // never activated
    return { address: shownAddress(address, body.visible === true), ...(balance ? { balance } : {}), ...accountStakeFields(this.resources, address) };
  }

  async getchainparameters() {
    return {
      chainParameter: [
        { key: 'getEnergyFee', value: ENERGY_FEE },
        { key: 'getTransactionFee', value: BANDWIDTH_FEE },
        { key: 'getCreateAccountFee', value: CREATE_ACCOUNT_FEE },
        { key: 'getCreateNewAccountFeeInSystemContract', value: CREATE_NEW_ACCOUNT_FEE },
        { key: 'getTotalEnergyCurrentLimit', value: this.resources.rules.totalEnergyCurrentLimit },
        { key: 'getFreeNetLimit', value: this.resources.rules.freeNetLimit },
        // Whole days, as java-tron reports it; a shortened delay (the sandbox's option) shows as the 14 it stands for.
        { key: 'getUnfreezeDelayDays', value: 14 },
      ],
    };
  }

  /**
   * The energy a call uses: a token transfer as on TRON mainnet (twice as much to an address holding
   * none of the token), anything else the backing node's gas estimate (a call that would revert uses a
   * nominal amount).
   */
  private async energyOf(from: Hex, to: Hex, data: string, value = 0n): Promise<bigint> {
    let gas: bigint;
    try {
      gas = BigInt(await this.call<Hex>('eth_estimateGas', [{ from, to, data: `0x${data}`, value: `0x${value.toString(16)}` }]));
    } catch {
      return REVERT_ENERGY;
    }
    if (!data.startsWith(TRANSFER_SELECTOR) || data.length !== 8 + 128) return gas;
    try {
      const held = await this.call<Hex>('eth_call', [{ to, data: `0x${BALANCE_OF_SELECTOR}${data.slice(8, 72)}` }, 'pending']);
      if (!/^0x[0-9a-fA-F]{64}$/.test(held)) return gas; // not a token: its gas
      return BigInt(held) === 0n ? FIRST_HOLDER_TRANSFER_ENERGY : TRANSFER_ENERGY;
    } catch {
      return gas;
    }
  }

  // ---- building ------------------------------------------------------------

  /** raw_data of a new transaction referencing the latest block, as java-tron builds it. */
  private async newTransaction(type: ContractType, value: Record<string, unknown>, extra: Record<string, unknown> = {}, visible = false): Promise<TronTransaction> {
    const head = (await this.evmBlock('latest'))!;
    const number = BigInt(head.number);
    const id = blockIdOf(number, head.hash);
    const timestamp = Number(BigInt(head.timestamp)) * 1000;
    const raw_data = {
      contract: [{ parameter: { value, type_url: `type.googleapis.com/protocol.${type}` }, type }],
      ref_block_bytes: number.toString(16).slice(-4).padStart(4, '0'),
      ref_block_hash: id.slice(16, 32),
      expiration: Math.max(timestamp, Date.now()) + 60_000,
      timestamp: Date.now(),
      ...extra,
    };
    const tx: TronTransaction = { visible: false, txID: '', raw_data, raw_data_hex: '' };
    const pb = txJsonToPb(tx);
    tx.raw_data_hex = txPbToRawDataHex(pb).toLowerCase();
    tx.txID = sha256Hex(tx.raw_data_hex);
    // A `visible` request gets the same bytes, its JSON's addresses in base58 (as java-tron answers it).
    if (visible) {
      tx.visible = true;
      raw_data.contract[0]!.parameter.value = shownValue(value, true);
    }
    return tx;
  }

  /** A Stake 2.0 transaction, validated as java-tron validates it when it builds one (refused with its message). */
  private async buildStake(type: StakeType, body: Record<string, unknown>) {
    const built = stakeValue(type, body);
    if ('error' in built) return buildRefusal(built.error);
    const owner = String(built.value.owner_address);
    const balance = await this.account(owner);
    if (balance === null) return buildRefusal(`Account[${owner}] not exists`);
    const plan = await planStake(type, built.value, this.resources, { balance, receiver: (a) => this.facts(a) });
    if ('error' in plan) return buildRefusal(plan.error);
    return this.newTransaction(type, built.value, {}, body.visible === true);
  }

  /** Whether an address is an activated account, and whether it is a contract. */
  private async facts(address: string) {
    const [balance, code] = await Promise.all([this.account(address, 'pending'), this.call<Hex>('eth_getCode', [evmOf(address), 'pending'])]);
    return { exists: balance !== null, isContract: code !== '0x' && code !== '0x0' };
  }

  async createtransaction(body: Record<string, unknown>) {
    const visible = body.visible === true;
    const owner = requestAddress(body.owner_address, visible);
    const to = requestAddress(body.to_address, visible);
    if (!owner || !to || !Number.isSafeInteger(body.amount) || (body.amount as number) <= 0) return { Error: 'owner_address, to_address and a positive amount are required' };
    return this.newTransaction('TransferContract', { owner_address: owner, to_address: to, amount: body.amount });
  }

  private contractCall(body: Record<string, unknown>) {
    const visible = body.visible === true;
    const owner = requestAddress(body.owner_address, visible);
    const contract = requestAddress(body.contract_address, visible);
    let data = typeof body.data === 'string' ? strip0x(body.data) : null;
    if (typeof body.function_selector === 'string') {
      data = strip0x(keccak256(toBytes(body.function_selector))).slice(0, 8) + (typeof body.parameter === 'string' ? body.parameter : '');
    }
    if (!owner || !contract || data === null || !/^([0-9a-fA-F]{2})*$/.test(data)) return null;
    const callValue = Number.isSafeInteger(body.call_value) ? (body.call_value as number) : 0;
    return { owner, contract, data: data.toLowerCase(), callValue };
  }

  async triggersmartcontract(body: Record<string, unknown>) {
    const call = this.contractCall(body);
    if (!call) return { result: { result: false, code: 'CONTRACT_VALIDATE_ERROR', message: hexText('owner_address, contract_address and a function are required') } };
    const value: Record<string, unknown> = { data: call.data, owner_address: call.owner, contract_address: call.contract };
    if (call.callValue) value.call_value = call.callValue;
    const feeLimit = Number.isSafeInteger(body.fee_limit) ? (body.fee_limit as number) : 150_000_000;
    const transaction = await this.newTransaction('TriggerSmartContract', value, { fee_limit: feeLimit });
    return { result: { result: true }, transaction };
  }

  async triggerconstantcontract(body: Record<string, unknown>) {
    const call = this.contractCall(body);
    if (!call) return { result: { result: false, code: 'CONTRACT_VALIDATE_ERROR', message: hexText('owner_address, contract_address and a function are required') } };
    try {
      const out = await this.call<Hex>('eth_call', [{ from: evmOf(call.owner), to: evmOf(call.contract), data: `0x${call.data}`, value: `0x${call.callValue.toString(16)}` }, 'latest']);
      const energy = await this.energyOf(evmOf(call.owner), evmOf(call.contract), call.data, BigInt(call.callValue));
      return { result: { result: true }, energy_used: energy, constant_result: [strip0x(out)] };
    } catch (err) {
      // A revert is the contract's answer; anything else (the node behind is down) is the stand-in's error.
      if (!/revert/i.test((err as Error).message)) throw err;
      // As java-tron answers a reverting call (Wallet.triggerConstantContract): the call itself succeeded,
      // its dry-run transaction FAILED, and the runtime error is the message.
      return {
        result: { result: true, message: hexText('REVERT opcode executed') },
        energy_used: Number(REVERT_ENERGY),
        // The revert's output, as java-tron returns it: Error(string) ABI-encoded.
        constant_result: [strip0x(revertData(/execution reverted:?\s*(.*)$/i.exec((err as Error).message)?.[1] ?? ''))],
        transaction: { ret: [{ ret: 'FAILED' }], visible: false },
      };
    }
  }

  // ---- broadcasting --------------------------------------------------------

  async broadcasttransaction(body: Record<string, unknown>) {
    const parsed = broadcastBody.safeParse(body);
    const claimed = typeof body.txID === 'string' ? body.txID : '';
    if (!parsed.success) return refusal('OTHER_ERROR', claimed, `malformed transaction: ${parsed.error.issues[0]?.message ?? ''}`);
    const t = parsed.data;
    const rawHex = t.raw_data_hex.toLowerCase();
    // What runs is decoded from raw_data_hex (the decoder writes hex in capitals); the JSON must say the same, or it is refused.
    let jsonHex: string;
    let contracts: number;
    try {
      jsonHex = txPbToRawDataHex(txJsonToPb({ raw_data: t.raw_data, visible: t.visible ?? false })).toLowerCase();
      // Counted in the signed bytes and in the JSON (tronweb's encoder reads only the JSON's first contract).
      const signed = RawTransaction.deserializeBinary(Buffer.from(rawHex, 'hex')).getContractList().length;
      const shown = Array.isArray(t.raw_data.contract) ? t.raw_data.contract.length : 0;
      contracts = signed === shown ? signed : -1;
    } catch (err) {
      return refusal('OTHER_ERROR', claimed, `raw_data is not a transaction: ${(err as Error).message}`);
    }
    if (jsonHex !== rawHex) return refusal('OTHER_ERROR', claimed, 'raw_data does not match raw_data_hex');
    const txID = sha256Hex(rawHex);
    if (txID !== t.txID.toLowerCase()) return refusal('SIGERROR', claimed, 'txID is not the sha256 of raw_data');
    // As java-tron: one contract per transaction.
    if (contracts !== 1) return refusal('CONTRACT_VALIDATE_ERROR', txID, 'a transaction carries exactly one contract');
    // Claimed before the first await, so two concurrent broadcasts of one transaction cannot both run it.
    if (this.hashById.has(txID) || this.inFlight.has(txID)) return refusal('DUP_TRANSACTION_ERROR', txID, 'the transaction was broadcast before');
    this.inFlight.add(txID);
    const run = this.running.then(() => this.checkAndRun(t, txID, rawHex));
    this.running = run.catch(() => undefined);
    try {
      return await run;
    } finally {
      this.inFlight.delete(txID);
    }
  }

  private async checkAndRun(t: z.infer<typeof broadcastBody>, txID: string, rawHex: string) {
    let decoded: { type: ContractType; raw: Record<string, unknown>; value: Record<string, unknown> } | null = null;
    for (const type of SUPPORTED) {
      try {
        const raw = deserializeTransaction(type, rawHex) as { contract: { parameter: { value: Record<string, unknown> } }[] } & Record<string, unknown>;
        decoded = { type, raw, value: raw.contract[0]!.parameter.value };
        break;
      } catch {
        /* another type */
      }
    }
    if (!decoded) return refusal('CONTRACT_VALIDATE_ERROR', txID, `the sandbox runs ${SUPPORTED.join(', ')} only`);
    const owner = String(decoded.value.owner_address ?? '').toLowerCase();
    let signer: string;
    try {
      signer = tronHex(await recoverAddress({ hash: `0x${txID}`, signature: `0x${t.signature[0]}` }));
    } catch {
      return refusal('SIGERROR', txID, 'the signature does not recover');
    }
    if (signer !== owner) return refusal('SIGERROR', txID, `the transaction is signed by ${signer}, not by its owner ${owner}`);
    const now = Date.now();
    const expiration = Number(decoded.raw.expiration);
    if (!(expiration > now) || expiration > now + 24 * 3600_000) return refusal('TRANSACTION_EXPIRATION_ERROR', txID, 'the transaction has expired or expires too late');
    if (!(await this.referencesThisChain(String(decoded.raw.ref_block_bytes).toLowerCase(), String(decoded.raw.ref_block_hash).toLowerCase()))) {
      return refusal('TAPOS_ERROR', txID, 'ref_block is not a recent block of this chain');
    }
    const from = evmOf(owner);
    const balance = await this.account(owner, 'pending');
    // Bandwidth: every byte of the signed transaction and its result allowance, from the free
    // bandwidth when it covers them all, burnt as TRX otherwise.
    const bytes = BigInt(rawHex.length / 2) + 65n * BigInt(t.signature.length) + RESULT_BYTES;
    const free = balance !== null && this.resources.freeNetCovers(owner, bytes);
    const bandwidth = free ? 0n : bytes * BANDWIDTH_FEE;
    const netUsage = free ? bytes : 0n;
    let request: Record<string, unknown>;
    let cost: Cost;
    /** What runs once the backing transactions are queued: the resource model's own changes. */
    let commit: () => void;
    let payback = 0n;
    if (decoded.type === 'TransferContract') {
      const to = String(decoded.value.to_address ?? '').toLowerCase();
      const amount = exactInt(decoded.value.amount ?? 0);
      if (!/^41[0-9a-f]{40}$/.test(to) || amount === null || amount <= 0n) return refusal('CONTRACT_VALIDATE_ERROR', txID, 'to_address and a positive amount are required');
      // A recipient never activated is created by this transfer, at the sender's cost (in place of the bandwidth).
      const creates = (await this.account(to, 'pending')) === null;
      const fee = creates ? CREATE_NEW_ACCOUNT_FEE + CREATE_ACCOUNT_FEE : bandwidth;
      if ((balance ?? 0n) < amount + fee) return refusal('CONTRACT_VALIDATE_ERROR', txID, 'Validate TransferContract error, balance is not sufficient.');
      cost = { ...noCost, fee, net_fee: fee, net_usage: creates ? 0n : netUsage };
      commit = () => !creates && free && this.resources.consumeFreeNet(owner, bytes);
      request = { from, to: evmOf(to), value: `0x${amount.toString(16)}`, gas: '0x5208' };
    } else if (decoded.type === 'TriggerSmartContract') {
      const contract = String(decoded.value.contract_address ?? '').toLowerCase();
      if (!/^41[0-9a-f]{40}$/.test(contract)) return refusal('CONTRACT_VALIDATE_ERROR', txID, 'contract_address is required');
      if (balance === null) return refusal('CONTRACT_VALIDATE_ERROR', txID, 'Validate TriggerSmartContract error, no OwnerAccount.');
      if (balance < bandwidth) return refusal('BANDWITH_ERROR', txID, 'Account resource insufficient error.') /* java-tron's spelling (api.proto) */;
      const callValue = exactInt(decoded.value.call_value ?? 0);
      if (callValue === null || callValue < 0n) return refusal('CONTRACT_VALIDATE_ERROR', txID, 'call_value is not an int64 the stand-in reads exactly');
      const data = String(decoded.value.data ?? '').toLowerCase();
      const feeLimit = exactInt(decoded.raw.fee_limit) ?? 0n;
      const energy = await this.energyOf(from, evmOf(contract), data, callValue);
      const { used, fromStake, energyFee, enough } = chargeCall({
        energy,
        staked: this.resources.energyAvailable(owner),
        spendable: balance - bandwidth - callValue,
        feeLimit,
        price: ENERGY_FEE,
      });
      cost = {
        fee: bandwidth + energyFee,
        net_fee: bandwidth,
        net_usage: netUsage,
        energy_fee: energyFee,
        energy_usage: fromStake,
        energy_usage_total: used,
        ...(enough ? {} : { result: 'OUT_OF_ENERGY' }),
      };
      commit = () => {
        if (free) this.resources.consumeFreeNet(owner, bytes);
        this.resources.consumeEnergy(owner, fromStake);
      };
      const gas = enough ? CALL_GAS : OUT_OF_ENERGY_GAS;
      request = { from, to: evmOf(contract), data: `0x${data}`, value: `0x${callValue.toString(16)}`, gas: `0x${gas.toString(16)}` };
    } else {
      // A Stake 2.0 contract: bandwidth only, then java-tron's validation of the contract itself.
      if (balance === null) {
        const tail = decoded.type === 'UnDelegateResourceContract' || decoded.type === 'UnfreezeBalanceV2Contract' ? '] does not exist' : '] not exists';
        return refusal('CONTRACT_VALIDATE_ERROR', txID, `Account[${owner}${tail}`);
      }
      if (balance < bandwidth) return refusal('BANDWITH_ERROR', txID, 'Account resource insufficient error.');
      const plan = await planStake(decoded.type, decoded.value, this.resources, { balance: balance - bandwidth, receiver: (a) => this.facts(a) });
      if ('error' in plan) return refusal('CONTRACT_VALIDATE_ERROR', txID, plan.error);
      payback = plan.fromVault;
      cost = { ...noCost, fee: bandwidth, net_fee: bandwidth, net_usage: netUsage, ...(payback ? { withdraw_expire_amount: payback } : {}) };
      commit = () => {
        if (free) this.resources.consumeFreeNet(owner, bytes);
        plan.commit();
      };
      request = { from, to: VAULT, value: `0x${plan.toVault.toString(16)}`, gas: '0x5208' };
    }
    const tx: TronTransaction = { txID, raw_data: t.raw_data, raw_data_hex: rawHex, signature: t.signature, visible: false };
    // The burn, then the transaction, queued in that order from the owner (broadcasts run one at a time);
    // then what the vault pays back, from the vault.
    let hash: Hex;
    try {
      if (cost.fee > 0n) await this.call<Hex>('eth_sendTransaction', [{ from, to: BURN, value: `0x${cost.fee.toString(16)}`, gas: '0x5208', gasPrice: '0x0' }]);
      hash = await this.call<Hex>('eth_sendTransaction', [{ ...request, gasPrice: '0x0' }]);
      if (payback > 0n) await this.call<Hex>('eth_sendTransaction', [{ from: VAULT, to: from, value: `0x${payback.toString(16)}`, gas: '0x5208', gasPrice: '0x0' }]);
    } catch (err) {
      return refusal('CONTRACT_VALIDATE_ERROR', txID, (err as Error).message);
    }
    commit();
    this.remember(hash, tx, cost);
    if (this.journal) appendFileSync(this.journal, `${tronJson({ hash, tx, cost: toJournal(cost) })}\n`);
    return { result: true, txid: txID };
  }

  /** TAPOS: the block whose number ends in ref_block_bytes, within the window, has ref_block_hash in its id. */
  private async referencesThisChain(refBytes: string, refHash: string): Promise<boolean> {
    if (!/^[0-9a-f]{4}$/.test(refBytes) || !/^[0-9a-f]{16}$/.test(refHash)) return false;
    const head = BigInt(await this.call<Hex>('eth_blockNumber'));
    const low = BigInt(`0x${refBytes}`);
    const n = head - ((head - low) % TAPOS_WINDOW + TAPOS_WINDOW) % TAPOS_WINDOW;
    if (n < 0n) return false;
    const block = await this.evmBlock(n);
    return !!block && blockIdOf(n, block.hash).slice(16, 32) === refHash;
  }
}



type Route = (this: TronStandin, body: Record<string, unknown>) => Promise<unknown>;
const proto = TronStandin.prototype as unknown as Record<string, Route>;
const ROUTES: Record<string, Route> = Object.fromEntries(
  [
    'getnowblock',
    'getblock',
    'getblockbynum',
    'getblockbyid',
    'getblockbylimitnext',
    'gettransactionbyid',
    'gettransactioninfobyid',
    'gettransactioninfobyblocknum',
    'getaccount',
    'getchainparameters',
    'createtransaction',
    'triggersmartcontract',
    'triggerconstantcontract',
    'broadcasttransaction',
  ].map((name) => [`/${name}`, proto[name]!]),
);
