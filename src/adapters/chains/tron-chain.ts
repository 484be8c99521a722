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
//   past the finality depth is later than every expiration. The checks are
//   tron-transactions.ts's; the Stake 2.0 transactions are tron-staking.ts's.
import { decodeErrorResult } from 'viem';
import {
  BroadcastRejected,
  type ChainSender,
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
import type { EnergyChain, TronAccountResources, TronEnergyStake } from '../../domain/energy/resources.js';
import { TronStaking } from './tron-staking.js';
import { exactInt, lower, signVerified, type BuiltTransaction, type TronContractType } from './tron-transactions.js';

export { tronJson } from './tron-node.js';
export type { TronChainOptions } from './tron-reading.js';

const word = (hex: string) => hex.padStart(64, '0');

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

export class TronChainPort extends TronChainReader implements ChainSender, EnergyChain {
  // The sending side (ChainSender): what the outgoing-transfer pipeline needs.

  private parameters: { at: number; value: Promise<ChainParameters> } | null = null;
  /** Transfers whose dry run reverted though the sender held the amount: the head block when first seen. */
  private readonly suspectedRefusals = new Map<string, bigint>();
  /** Stake 2.0: the energy account's resources, stake and delegations, and its transactions. */
  private readonly staking = new TronStaking(this.network, (path, body) => this.post(path, body), (address) => this.hexAddress(address));

  resources(address: string): Promise<TronAccountResources | null> {
    return this.staking.resources(address);
  }

  stake(address: string): Promise<TronEnergyStake | null> {
    return this.staking.stake(address);
  }

  delegatedTo(from: string, to: string): Promise<bigint> {
    return this.staking.delegatedTo(from, to);
  }

  /**
   * What `from` has lent `to` as every URL shows it, each with a head at or past block `since` (the delegation's):
   * null when a URL is behind it, cannot answer, or the URLs disagree. A verdict that ends a loan needs this, not
   * one backend's read: a node behind the delegation shows nothing lent.
   */
  async delegatedOnEveryNode(from: string, to: string, since: bigint): Promise<bigint | null> {
    const answers = await Promise.all(
      this.node.urls.map(async (base) => {
        try {
          const post = <T>(path: string, body: Record<string, unknown>) => this.node.postTo<T>(base, path, body);
          const head = this.blockRef(await post<Parameters<TronChainPort['blockRef']>[0]>('wallet/getnowblock', {}))?.number ?? -1n;
          if (head < since) return null;
          return await new TronStaking(this.network, post, (address) => this.hexAddress(address)).delegatedTo(from, to);
        } catch {
          return null;
        }
      }),
    );
    const first = answers[0] ?? null;
    return first !== null && answers.every((a) => a === first) ? first : null;
  }

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
    return { energy: BigInt(energy) * params.energyFee, bandwidth: CONTRACT_CALL_BYTES * params.bandwidthFee, activation: 0n, energyUnits: BigInt(energy) };
  }

  async sign(tx: UnsignedTransfer, sign: SignDigest): Promise<SignedTransaction> {
    if (tx.stake) return this.staking.sign(tx.from, tx.stake, sign);
    const owner = this.hexAddress(tx.from);
    let built: BuiltTransaction;
    let expect: (value: Record<string, unknown>, raw: Record<string, unknown>) => boolean;
    let type: TronContractType;
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
    return signVerified(this.network, built, type, owner, expect, sign);
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

