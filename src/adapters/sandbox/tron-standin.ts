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
// Resources are charged as java-tron burns TRX for them when an account has
// nothing staked (the stand-in grants no free bandwidth: the worst case):
// bandwidth for every byte of a transaction; energy for a contract call at
// the chain's energy price, at most its fee_limit, the call running out of
// energy (included, failed, the fee burnt) when the limit or the balance
// does not cover it; and the creation of an account never activated, paid
// by the sender of the TRX that creates it. An account that does not exist
// cannot call a contract. The burnt TRX is the transaction info's `fee`.
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { utils as tronUtils } from 'tronweb';
import { encodeErrorResult, keccak256, recoverAddress, toBytes, type Hex } from 'viem';
import { z } from 'zod';
import { tronJson } from '../chains/tron-chain.js';
import { rpc, startAnvil, type RunningAnvil } from './anvil.js';
import { freePort } from './local-ports.js';

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
const SUPPORTED = ['TriggerSmartContract', 'TransferContract'] as const;
type ContractType = (typeof SUPPORTED)[number];

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

/** What a transaction burnt (sun) and how it ended, as its transaction info shows it. */
interface Cost {
  fee: bigint;
  net_fee: bigint;
  energy_fee: bigint;
  energy_usage_total: bigint;
  /** OUT_OF_ENERGY when the call ran out of energy. */
  result?: string;
}

/** A TRON transaction as the HTTP API shows it. */
export interface TronTransaction {
  txID: string;
  raw_data: Record<string, unknown>;
  raw_data_hex: string;
  signature?: string[];
  visible?: boolean;
}

const strip0x = (h: string) => (h.startsWith('0x') ? h.slice(2) : h);
const tronHex = (evm: string) => `41${strip0x(evm).toLowerCase()}`;
const evmOf = (tron: string): Hex => `0x${tron.slice(2)}` as Hex;
const sha256Hex = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
const hexText = (s: string) => Buffer.from(s, 'utf8').toString('hex');

/** The TRON block id: the number in 8 bytes, then the last 24 bytes of the backing block's hash. */
export const blockIdOf = (number: bigint, evmHash: string) => number.toString(16).padStart(16, '0') + strip0x(evmHash).slice(16);

/** A TRON hex address (41…) from the request's form: hex, or base58 when `visible`. */
function requestAddress(value: unknown, visible: boolean): string | null {
  if (typeof value !== 'string') return null;
  if (visible || value.startsWith('T')) {
    try {
      const hex = tronUtils.address.toHex(value);
      return /^41[0-9a-f]{40}$/i.test(hex) ? hex.toLowerCase() : null;
    } catch {
      return null;
    }
  }
  return /^41[0-9a-fA-F]{40}$/.test(value) ? value.toLowerCase() : null;
}

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
  const standin = new TronStandin(anvil.rpcUrl, opts.stateFile ? `${opts.stateFile}.transactions.jsonl` : null);
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
      const route = ROUTES[path];
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
    const shown = shownTransactions(block);
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
    return {
      id: t.txID,
      fee: cost?.fee ?? 0n,
      blockNumber: Number(BigInt(block.number)),
      blockTimeStamp: Number(BigInt(block.timestamp)) * 1000,
      contractResult: [''],
      ...(type === 'TriggerSmartContract' && tx.to ? { contract_address: tronHex(tx.to) } : {}),
      receipt:
        type === 'TransferContract'
          ? { net_fee: cost?.net_fee ?? 0n, net_usage: 0 }
          : { energy_fee: cost?.energy_fee ?? 0n, energy_usage_total: energy, net_fee: cost?.net_fee ?? 0n, net_usage: 0, result },
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
    return Promise.all(shownTransactions(block).map((tx) => this.info(tx, receipts.get(tx.hash.toLowerCase())!, block)));
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
    return { address: body.visible === true ? tronUtils.address.fromHex(address) : address, balance };
  }

  async getchainparameters() {
    return {
      chainParameter: [
        { key: 'getEnergyFee', value: ENERGY_FEE },
        { key: 'getTransactionFee', value: BANDWIDTH_FEE },
        { key: 'getCreateAccountFee', value: CREATE_ACCOUNT_FEE },
        { key: 'getCreateNewAccountFeeInSystemContract', value: CREATE_NEW_ACCOUNT_FEE },
      ],
    };
  }

  /** The energy a call uses: the backing node's gas estimate (a call that would revert uses a nominal amount). */
  private async energyOf(from: Hex, to: Hex, data: string, value = 0n): Promise<bigint> {
    try {
      return BigInt(await this.call<Hex>('eth_estimateGas', [{ from, to, data: `0x${data}`, value: `0x${value.toString(16)}` }]));
    } catch {
      return REVERT_ENERGY;
    }
  }

  // ---- building ------------------------------------------------------------

  /** raw_data of a new transaction referencing the latest block, as java-tron builds it. */
  private async newTransaction(type: ContractType, value: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<TronTransaction> {
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
    return tx;
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
    if (!decoded) return refusal('CONTRACT_VALIDATE_ERROR', txID, 'the sandbox runs TransferContract and TriggerSmartContract only');
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
    // Bandwidth: every byte of the signed transaction and its result allowance, burnt as TRX.
    const bandwidth = (BigInt(rawHex.length / 2) + 65n * BigInt(t.signature.length) + RESULT_BYTES) * BANDWIDTH_FEE;
    let request: Record<string, unknown>;
    let cost: Cost;
    if (decoded.type === 'TransferContract') {
      const to = String(decoded.value.to_address ?? '').toLowerCase();
      const amount = BigInt(decoded.value.amount as number);
      if (!/^41[0-9a-f]{40}$/.test(to) || amount <= 0n) return refusal('CONTRACT_VALIDATE_ERROR', txID, 'to_address and a positive amount are required');
      // A recipient never activated is created by this transfer, at the sender's cost (in place of the bandwidth).
      const creates = (await this.account(to, 'pending')) === null;
      const fee = creates ? CREATE_NEW_ACCOUNT_FEE + CREATE_ACCOUNT_FEE : bandwidth;
      if ((balance ?? 0n) < amount + fee) return refusal('CONTRACT_VALIDATE_ERROR', txID, 'Validate TransferContract error, balance is not sufficient.');
      cost = { fee, net_fee: fee, energy_fee: 0n, energy_usage_total: 0n };
      request = { from, to: evmOf(to), value: `0x${amount.toString(16)}`, gas: '0x5208' };
    } else {
      const contract = String(decoded.value.contract_address ?? '').toLowerCase();
      if (!/^41[0-9a-f]{40}$/.test(contract)) return refusal('CONTRACT_VALIDATE_ERROR', txID, 'contract_address is required');
      if (balance === null) return refusal('CONTRACT_VALIDATE_ERROR', txID, 'Validate TriggerSmartContract error, no OwnerAccount.');
      if (balance < bandwidth) return refusal('BANDWITH_ERROR', txID, 'Account resource insufficient error.') /* java-tron's spelling (api.proto) */;
      const callValue = BigInt((decoded.value.call_value as number | undefined) ?? 0);
      const data = String(decoded.value.data ?? '').toLowerCase();
      const feeLimit = Number.isSafeInteger(decoded.raw.fee_limit) ? BigInt(decoded.raw.fee_limit as number) : 0n; // the decoder's int64, exact below 2^53
      // Energy is burnt up to the fee_limit and what the balance holds after the bandwidth; a call needing more runs out of it.
      const payable = balance - bandwidth - callValue < feeLimit ? balance - bandwidth - callValue : feeLimit;
      const energy = await this.energyOf(from, evmOf(contract), data, callValue);
      const enough = energy * ENERGY_FEE <= payable;
      const energyFee = enough ? energy * ENERGY_FEE : payable > 0n ? payable : 0n;
      cost = {
        fee: bandwidth + energyFee,
        net_fee: bandwidth,
        energy_fee: energyFee,
        energy_usage_total: enough ? energy : energyFee / ENERGY_FEE,
        ...(enough ? {} : { result: 'OUT_OF_ENERGY' }),
      };
      const gas = enough ? CALL_GAS : OUT_OF_ENERGY_GAS;
      request = { from, to: evmOf(contract), data: `0x${data}`, value: `0x${callValue.toString(16)}`, gas: `0x${gas.toString(16)}` };
    }
    const tx: TronTransaction = { txID, raw_data: t.raw_data, raw_data_hex: rawHex, signature: t.signature, visible: false };
    // The burn, then the transaction, queued in that order from the owner (broadcasts run one at a time).
    let hash: Hex;
    try {
      if (cost.fee > 0n) await this.call<Hex>('eth_sendTransaction', [{ from, to: BURN, value: `0x${cost.fee.toString(16)}`, gas: '0x5208', gasPrice: '0x0' }]);
      hash = await this.call<Hex>('eth_sendTransaction', [{ ...request, gasPrice: '0x0' }]);
    } catch (err) {
      return refusal('CONTRACT_VALIDATE_ERROR', txID, (err as Error).message);
    }
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

/** The block's transactions as TRON shows them: the burns are the stand-in's bookkeeping. */
const shownTransactions = (block: EvmBlock): EvmTx[] => block.transactions.filter((tx) => tx.to?.toLowerCase() !== BURN);

const toJournal = (c: Cost): Record<string, string> => Object.fromEntries(Object.entries(c).map(([k, v]) => [k, String(v)]));
const fromJournal = (c: Record<string, string>): Cost => ({
  fee: BigInt(c.fee ?? 0),
  net_fee: BigInt(c.net_fee ?? 0),
  energy_fee: BigInt(c.energy_fee ?? 0),
  energy_usage_total: BigInt(c.energy_usage_total ?? 0),
  ...(c.result ? { result: c.result } : {}),
});

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
