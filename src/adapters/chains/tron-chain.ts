// The TRON adapter (ChainPort and ChainSender) against a full node's HTTP API
// (java-tron, TronGrid, or the sandbox's stand-in; docs/operations.md#deposits):
// reading is tron-reading.ts, the nodes' HTTP client tron-node.ts. This file
// is the sending side the outgoing-transfer pipeline needs: burn estimates,
// signing what the node built once verified, broadcasting and receipts.
// - Sending (ChainSender, ADR 0027): transactions are built by the node
//   (createtransaction, triggersmartcontract with a fee_limit) and signed only
//   after the decoded raw_data_hex was found to say exactly what was asked
//   (one contract, owner, recipient, amount, contract call, fee_limit, no
//   memo), txID to be its sha256 and the JSON to encode to the same bytes:
//   the node's answer is never signed on trust. No nonce: an attempt expires
//   (raw_data.expiration), and the pipeline signs a new one only once a block
//   past the finality depth is later than every expiration.
import { createHash } from 'node:crypto';
import { utils as tronUtils } from 'tronweb';
import { decodeErrorResult } from 'viem';
import {
  BroadcastRejected,
  type ChainSender,
  type DigestSignature,
  type SentReceipt,
  type SignDigest,
  type SignedTransaction,
  type TransferCall,
  TransferRefused,
  type TronBurn,
  type UnsignedTransfer,
} from '../../domain/transfers/ports.js';
import { ChainUnavailableError, type BlockRef } from '../../domain/chains/chain-port.js';
import { evmBytesFromTronAddress } from './address-codec.js';
import { refusalText } from './tron-node.js';
import { HEX_ID, infoFailed, TronChainReader, type TronInfo } from './tron-reading.js';

export { tronJson } from './tron-node.js';
export type { TronChainOptions } from './tron-reading.js';

/** An int64 the decoder gave as a JS number, as a bigint; null when it may not be exact. */
const exactInt = (v: unknown): bigint | null => (typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : null);

const sha256Hex = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
const word = (hex: string) => hex.padStart(64, '0');
const { txJsonToPb, txPbToRawDataHex } = tronUtils.transaction;
const { deserializeTransaction } = tronUtils.deserializeTx;
/** java-tron's Transaction.raw protobuf, which tronweb registers on globalThis: the contracts counted in the bytes themselves. */
const RawTransaction = (globalThis as unknown as { TronWebProto: { Transaction: { raw: { deserializeBinary(b: Uint8Array): { getContractList(): unknown[] } } } } })
  .TronWebProto.Transaction.raw;

/** The selector of TRC-20 transfer(address,uint256). */
const TRANSFER_SELECTOR = 'a9059cbb';
/**
 * Bytes a transaction is charged for in bandwidth (the signed transaction
 * and java-tron's 64-byte result allowance), rounded up: a TRX transfer is
 * about 270, a TRC-20 transfer about 345.
 */
const TRANSFER_BYTES = 300n;
const CONTRACT_CALL_BYTES = 400n;
/** Chain parameters are read again after this long. */
const PARAMETERS_TTL_MS = 10 * 60_000;
/**
 * The node's own transactions expire a minute after its head block; one
 * expiring later than this is refused before signing (a node could otherwise
 * hold back the bytes and stall the transfer until then).
 */
const MAX_EXPIRATION_MS = 10 * 60_000;

/** Codes of broadcasttransaction (java-tron's response_code) and what they mean for the bytes. */
const BUSY_CODES = new Set(['SERVER_BUSY', 'NO_CONNECTION', 'NOT_ENOUGH_EFFECTIVE_CONNECTION', 'BLOCK_UNSOLIDIFIED']);
const DEAD_CODES = new Set(['TRANSACTION_EXPIRATION_ERROR', 'TAPOS_ERROR']);

/** Blocks a TRON dry run must go on reverting (the sender holding the amount) before the transfer is refused for good. */
const REFUSAL_PROOF_BLOCKS = 3n;

interface ChainParameters {
  energyFee: bigint;
  bandwidthFee: bigint;
  createAccountFee: bigint;
  createNewAccountFee: bigint;
}

export class TronChainPort extends TronChainReader implements ChainSender {
  // The sending side (ChainSender): what the outgoing-transfer pipeline needs.

  private parameters: { at: number; value: Promise<ChainParameters> } | null = null;
  /** Transfers whose dry run reverted though the sender held the amount: the head block when first seen. */
  private readonly suspectedRefusals = new Map<string, bigint>();

  /** EVM fees: none on TRON (energy and bandwidth are burnt, see burnEstimate). */
  async feeQuote(): Promise<null> {
    return null;
  }

  async gasLimit(): Promise<null> {
    return null;
  }

  /** No nonces on TRON: transactions expire instead. */
  async minedNonce(): Promise<null> {
    return null;
  }

  async settledNonce(): Promise<null> {
    return null;
  }

  /** The receipt as any URL has it; null only when every URL answered without it (one that cannot answer throws). */
  async sentReceiptOnEveryNode(txid: string): Promise<SentReceipt | null> {
    if (!HEX_ID.test(txid.replace(/^0x/, ''))) return null;
    const answers = await this.infosOnEveryUrl(txid);
    const found = answers.map((a) => ('info' in a ? a.info : null)).find((i): i is TronInfo => i !== null);
    if (found) {
      const block = await this.blockByNumber(BigInt(found.blockNumber!));
      if (!block) throw new ChainUnavailableError(this.network, 'node_behind', `the block of ${txid} is not served yet`);
      return this.receiptOf(found, block);
    }
    const failed = answers.find((a): a is { error: Error } => 'error' in a);
    if (failed) throw failed.error;
    return null;
  }

  async agreedReceipt(txid: string): Promise<SentReceipt | null> {
    if (!HEX_ID.test(txid.replace(/^0x/, ''))) return null;
    const answers = await this.infosOnEveryUrl(txid);
    const infos = answers.map((a) => ('info' in a ? a.info : null)).filter((i): i is TronInfo => i !== null);
    if (infos.length === 0 || infos.length < Math.min(2, answers.length)) return null;
    const first = infos[0]!;
    if (infos.some((i) => i.blockNumber !== first.blockNumber || infoFailed(i) !== infoFailed(first))) return null;
    const block = await this.blockByNumber(BigInt(first.blockNumber!));
    return block ? this.receiptOf(first, block) : null;
  }

  async revertedOnEveryNode(txid: string): Promise<boolean> {
    if (!HEX_ID.test(txid.replace(/^0x/, ''))) return false;
    const blocks = (await this.infosOnEveryUrl(txid)).map((a) => ('info' in a && a.info && infoFailed(a.info) ? a.info.blockNumber : null));
    return blocks.length > 0 && new Set(blocks).size === 1 && blocks[0] !== null;
  }

  private chainParameters(): Promise<ChainParameters> {
    if (this.parameters && Date.now() - this.parameters.at < PARAMETERS_TTL_MS) return this.parameters.value;
    const value = this.post<{ chainParameter?: { key: string; value?: number }[] }>('wallet/getchainparameters', {}).then((out) => {
      const get = (key: string) => {
        const v = out.chainParameter?.find((p) => p.key === key)?.value ?? 0;
        if (!Number.isSafeInteger(v) || v < 0) throw new ChainUnavailableError(this.network, 'bad_response', `getchainparameters: ${key} is not a count of sun`);
        return BigInt(v);
      };
      return {
        energyFee: get('getEnergyFee'),
        bandwidthFee: get('getTransactionFee'),
        createAccountFee: get('getCreateAccountFee'),
        createNewAccountFee: get('getCreateNewAccountFeeInSystemContract'),
      };
    });
    this.parameters = { at: Date.now(), value };
    value.catch(() => {
      this.parameters = null;
    });
    return value;
  }

  private hexAddress(address: string): string {
    const bytes = evmBytesFromTronAddress(address);
    if (!bytes) throw new Error(`${this.network}: ${address} is not a TRON address`);
    return `41${Buffer.from(bytes).toString('hex')}`;
  }

  private contractHex(asset: string): string {
    const contract = [...this.tokenByContract].find(([, a]) => a === asset)?.[0];
    if (!contract) throw new Error(`${this.network}: no contract is configured for ${asset}`);
    return `41${contract}`;
  }

  /** The call data of a TRC-20 transfer of `amount` to `to`. */
  private transferData(to: string, amount: bigint): string {
    return TRANSFER_SELECTOR + word(this.hexAddress(to).slice(2)) + word(amount.toString(16));
  }

  async burnEstimate(call: TransferCall): Promise<TronBurn> {
    const params = await this.chainParameters();
    if (call.asset === 'TRX') {
      // Sending TRX to an account that does not exist yet creates it, at the sender's cost.
      const account = await this.post<{ address?: unknown }>('wallet/getaccount', { address: this.hexAddress(call.to) });
      const activation = account.address === undefined ? params.createNewAccountFee + params.createAccountFee : 0n;
      return { energy: 0n, bandwidth: TRANSFER_BYTES * params.bandwidthFee, activation };
    }
    const parameter = this.transferData(call.to, call.amount).slice(TRANSFER_SELECTOR.length);
    const out = await this.post<{ energy_used?: unknown; constant_result?: unknown[]; result?: { result?: boolean; code?: string; message?: string }; transaction?: { ret?: { ret?: string }[] } }>('wallet/triggerconstantcontract', {
      owner_address: this.hexAddress(call.from),
      contract_address: this.contractHex(call.asset),
      function_selector: 'transfer(address,uint256)',
      parameter,
    });
    const energy = out.energy_used;
    const key = `${call.asset}:${call.from}:${call.to}:${call.amount}`;
    // A revert: the node says CONTRACT_EXE_ERROR, or a successful call whose dry-run transaction FAILED.
    if (out.result?.code === 'CONTRACT_EXE_ERROR' || out.transaction?.ret?.[0]?.ret === 'FAILED') {
      // A refusal for good only when the sender holds the amount: a backend behind its funding reverts too.
      const held = await this.tokenBalance(call.asset, call.from);
      if (held < call.amount) {
        throw new ChainUnavailableError(this.network, 'node_behind', `triggerconstantcontract: ${call.from} holds ${held} of the ${call.amount} to send (a backend behind its funding): not a refusal`);
      }
      // java-tron answers both reads at whatever head the backend serving each has, with no block to pin them to:
      // the revert and the balance may come from two heads. The refusal stands once the revert is seen again, with
      // the balance, REFUSAL_PROOF_BLOCKS after it was first seen, when every backend of a pool has the funding block.
      const head = (await this.head()).number;
      const first = this.suspectedRefusals.get(key);
      if (first === undefined || head < first + REFUSAL_PROOF_BLOCKS) {
        if (first === undefined) {
          if (this.suspectedRefusals.size >= 10_000) this.suspectedRefusals.clear();
          this.suspectedRefusals.set(key, head);
        }
        throw new ChainUnavailableError(this.network, 'node_behind', `triggerconstantcontract: the ${call.asset} transfer from ${call.from} reverts at block ${head} though it holds the amount; a refusal if it still does at block ${(first ?? head) + REFUSAL_PROOF_BLOCKS}`);
      }
      this.suspectedRefusals.delete(key);
      const reason = revertReason(out.constant_result?.[0]);
      throw new TransferRefused(
        this.network,
        `${this.network}: the ${call.asset} contract refuses the transfer from ${call.from} to ${call.to} (a blocked address or a paused token): ${refusalText(out.result?.message).slice(0, 200)}${reason ? `: ${reason.slice(0, 200)}` : ''}`,
      );
    }
    if (out.result?.result !== true || typeof energy !== 'number' || !Number.isSafeInteger(energy) || energy < 0) {
      throw new ChainUnavailableError(this.network, 'bad_response', `triggerconstantcontract: no energy estimate (${refusalText(out.result?.message).slice(0, 200)})`);
    }
    this.suspectedRefusals.delete(key); // a pass in between: a later revert is proved afresh
    return { energy: BigInt(energy) * params.energyFee, bandwidth: CONTRACT_CALL_BYTES * params.bandwidthFee, activation: 0n };
  }

  async sign(tx: UnsignedTransfer, sign: SignDigest): Promise<SignedTransaction> {
    const owner = this.hexAddress(tx.from);
    let built: { txID?: unknown; raw_data?: unknown; raw_data_hex?: unknown };
    let expect: (value: Record<string, unknown>, raw: Record<string, unknown>) => boolean;
    let type: 'TransferContract' | 'TriggerSmartContract';
    if (tx.asset === 'TRX') {
      if (tx.amount <= 0n || tx.amount > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${this.network}: a TRX amount of ${tx.amount} sun cannot be sent exactly`);
      const to = this.hexAddress(tx.to);
      type = 'TransferContract';
      built = await this.post('wallet/createtransaction', { owner_address: owner, to_address: to, amount: tx.amount });
      expect = (v) => lower(v.to_address) === to && exactInt(v.amount) === tx.amount;
    } else {
      if (tx.feeLimit === null || tx.feeLimit <= 0n || tx.feeLimit > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${this.network}: a contract call needs a fee_limit`);
      const contract = this.contractHex(tx.asset);
      const data = this.transferData(tx.to, tx.amount);
      type = 'TriggerSmartContract';
      const out = await this.post<{ result?: { result?: boolean; message?: string }; transaction?: typeof built }>('wallet/triggersmartcontract', {
        owner_address: owner,
        contract_address: contract,
        function_selector: 'transfer(address,uint256)',
        parameter: data.slice(TRANSFER_SELECTOR.length),
        fee_limit: tx.feeLimit,
        call_value: 0,
      });
      if (out.result?.result !== true || !out.transaction) {
        throw new ChainUnavailableError(this.network, 'bad_response', `triggersmartcontract: ${refusalText(out.result?.message).slice(0, 200) || 'no transaction'}`);
      }
      built = out.transaction;
      expect = (v, raw) =>
        lower(v.contract_address) === contract &&
        lower(v.data) === data &&
        !v.call_value &&
        !v.call_token_value &&
        !v.token_id &&
        exactInt(raw.fee_limit) === tx.feeLimit;
    }
    const { txID, rawData, rawHex, expiration } = this.verified(built, type, owner, expect);
    const signature = signatureHex(await sign(Uint8Array.from(Buffer.from(txID, 'hex'))));
    const raw = JSON.stringify({ visible: false, txID, raw_data: rawData, raw_data_hex: rawHex, signature: [signature] });
    return { txid: txID, raw, expiresAt: expiration };
  }

  /** What the node built, checked against what was asked before anything is signed. */
  private verified(
    built: { txID?: unknown; raw_data?: unknown; raw_data_hex?: unknown },
    type: 'TransferContract' | 'TriggerSmartContract',
    owner: string,
    expect: (value: Record<string, unknown>, raw: Record<string, unknown>) => boolean,
  ): { txID: string; rawData: Record<string, unknown>; rawHex: string; expiration: number } {
    const refuse = (why: string): never => {
      throw new ChainUnavailableError(this.network, 'bad_response', `the node built a transaction that ${why}: not signed`);
    };
    const rawHex = typeof built.raw_data_hex === 'string' && /^([0-9a-fA-F]{2})+$/.test(built.raw_data_hex) ? built.raw_data_hex.toLowerCase() : refuse('has no raw_data_hex');
    const rawData = built.raw_data && typeof built.raw_data === 'object' ? (built.raw_data as Record<string, unknown>) : refuse('has no raw_data');
    const txID = sha256Hex(rawHex);
    if (typeof built.txID !== 'string' || built.txID.toLowerCase() !== txID) refuse('has a txID other than the sha256 of its bytes');
    let decoded: Record<string, unknown> & { contract?: unknown[] };
    let jsonHex: string;
    try {
      decoded = deserializeTransaction(type, rawHex) as typeof decoded;
      // Broadcast as JSON: the JSON must encode to the very bytes checked here and signed.
      jsonHex = txPbToRawDataHex(txJsonToPb({ raw_data: rawData, visible: false })).toLowerCase();
    } catch (err) {
      return refuse(`cannot be decoded (${(err as Error).message})`);
    }
    if (jsonHex !== rawHex) refuse('says something else in its JSON than in its bytes');
    // tronweb's decoder shows the first contract only: the count comes from the bytes.
    let count: number;
    try {
      count = RawTransaction.deserializeBinary(Buffer.from(rawHex, 'hex')).getContractList().length;
    } catch (err) {
      return refuse(`cannot be decoded (${(err as Error).message})`);
    }
    const contract = (decoded.contract ?? [])[0] as { parameter?: { value?: Record<string, unknown>; type_url?: string }; Permission_id?: number } | undefined;
    const value = contract?.parameter?.value;
    const shown = Array.isArray(rawData.contract) ? rawData.contract.length : 0;
    if (count !== 1 || shown !== 1 || !value || contract.Permission_id) refuse('is not a single contract of the owner');
    if (contract!.parameter!.type_url !== `type.googleapis.com/protocol.${type}`) refuse('names another contract type');
    if (lower(value!.owner_address) !== owner) refuse('has another owner');
    if (decoded.data || decoded.scripts) refuse('carries a memo or a script');
    if (!expect(value!, decoded)) refuse('differs from the transfer asked for');
    const expiration = decoded.expiration;
    if (typeof expiration !== 'number' || !Number.isSafeInteger(expiration) || expiration > Date.now() + MAX_EXPIRATION_MS) refuse('expires too late');
    return { txID, rawData, rawHex, expiration: expiration as number };
  }

  async broadcast(raw: string): Promise<'accepted' | 'known'> {
    const out = await this.post<{ result?: boolean; code?: string; message?: string }>('wallet/broadcasttransaction', JSON.parse(raw) as Record<string, unknown>);
    if (out.result === true) return 'accepted';
    const code = out.code ?? 'OTHER_ERROR';
    const text = `${this.network}: ${code} ${refusalText(out.message).slice(0, 300)}`.trim();
    if (code === 'DUP_TRANSACTION_ERROR') return 'known';
    if (BUSY_CODES.has(code)) throw new ChainUnavailableError(this.network, 'server_error', text);
    if (DEAD_CODES.has(code)) throw new BroadcastRejected('expired', text);
    // java-tron spells it BANDWITH_ERROR (api.proto's response_code); the corrected spelling is taken too.
    if (code === 'BANDWITH_ERROR' || code === 'BANDWIDTH_ERROR' || /balance is not sufficient|insufficient/i.test(text)) throw new BroadcastRejected('insufficient_funds', text);
    throw new BroadcastRejected('invalid', text);
  }

  async sentReceipt(txid: string): Promise<SentReceipt | null> {
    const found = await this.included(txid);
    return found ? this.receiptOf(found.info, found.block) : null;
  }

  private receiptOf(info: TronInfo, block: BlockRef): SentReceipt {
    const txid = info.id;
    const failed = infoFailed(info);
    const fee = info.fee ?? 0;
    if (!Number.isSafeInteger(fee) || fee < 0) throw new ChainUnavailableError(this.network, 'bad_response', `gettransactioninfobyid ${txid}: a fee that cannot be read exactly`);
    return { txid: info.id.toLowerCase(), status: failed ? 'reverted' : 'success', block, feePaid: BigInt(fee) };
  }
}

/** The text of a revert's Error(string) output (java-tron's constant_result), when it is one. */
function revertReason(data: unknown): string | null {
  if (typeof data !== 'string' || !/^08c379a0([0-9a-fA-F]{64}){2,}$/.test(data)) return null;
  try {
    const { args } = decodeErrorResult({ abi: [{ type: 'error', name: 'Error', inputs: [{ type: 'string', name: 'message' }] }], data: `0x${data}` });
    return typeof args[0] === 'string' ? args[0] : null;
  } catch {
    return null;
  }
}

const lower = (v: unknown): string => (typeof v === 'string' ? v.toLowerCase() : '');

/** r ‖ s ‖ v with v = 27 + recovery, as TRON writes signatures (65 bytes, hex). */
const signatureHex = (sig: DigestSignature): string => word(sig.r.toString(16)) + word(sig.s.toString(16)) + (27 + sig.recovery).toString(16);
