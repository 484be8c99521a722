// The EVM adapter for ETH and BSC (ChainPort and ChainSender, on viem over
// JSON-RPC): reading is evm-reading.ts, the URLs a pool (evm-rpc-pool.ts),
// providers' errors a catalogue (provider-errors.ts). This file is the
// sending side the outgoing-transfer pipeline needs: balances, fees, gas,
// nonces, signing, broadcasting and receipts. A verdict that moves money
// ("this transfer can never be mined") rests on the nonce at the
// confirmation depth and on every URL's word about every attempt's receipt,
// never on one read of one backend (issue 30).
import {
  encodeFunctionData,
  erc20Abi,
  keccak256,
  numberToHex,
  serializeTransaction,
  type Hex,
  type TransactionSerializableEIP1559,
} from 'viem';
import { ChainUnavailableError } from '../../domain/chains/chain-port.js';
import { ASSET_SPECS, isNativeCurrency, type Asset } from '../../domain/money/networks.js';
import type { EvmFees } from '../../domain/transfers/outgoing-transfer.js';
import {
  BroadcastRejected,
  type ChainSender,
  type SentReceipt,
  type SignDigest,
  type SignedTransaction,
  type TransferCall,
  TransferRefused,
  type UnsignedTransfer,
} from '../../domain/transfers/ports.js';
import { JsonRpcFailure } from './json-rpc-client.js';
import { EvmChainReader, hex, type RpcBlock, type RpcReceipt } from './evm-reading.js';

export { TRANSFER_TOPIC, type EvmChainOptions } from './evm-reading.js';

/** Gas of a plain native transfer to an address without code (the treasury, a deposit address). */
export const NATIVE_TRANSFER_GAS = 21_000n;
/** How far back the block that took a nonce is searched: the recent state full nodes keep (geth: 128 blocks). */
const NONCE_SEARCH_BLOCKS = 128n;
/** Percent added to the node's gas estimate of a token transfer. */
const GAS_LIMIT_MARGIN_PERCENT = 20n;
/** How far below the head a refusal is proved: every backend of a pool lagging up to this many blocks has that block. */
const REFUSAL_PROOF_DEPTH = 3n;
/** JSON-RPC 3 (geth, reth, anvil) or the phrase: the contract reverts the call. */
const isRevert = (err: unknown): err is JsonRpcFailure => err instanceof JsonRpcFailure && (err.failure.code === 3 || /execution reverted/i.test(err.failure.text));

/** How nodes (geth, reth, anvil, BSC) phrase a refused raw transaction. */
const KNOWN_TX = /already known|already imported|known transaction|transaction already exists/i;
const REFUSALS: [RegExp, BroadcastRejected['reason']][] = [
  [/nonce too low|nonce is too low|old nonce/i, 'nonce_too_low'],
  [/underpriced|fee too low|max fee per gas less than block base fee|gas price too low/i, 'underpriced'],
  [/insufficient funds|insufficient balance/i, 'insufficient_funds'],
];

export class EvmChainPort extends EvmChainReader implements ChainSender {
// The sending side (ChainSender): what the outgoing-transfer pipeline needs.

  async sentReceipt(txid: string): Promise<SentReceipt | null> {
    const r = await this.call<RpcReceipt | null>('eth_getTransactionReceipt', [txid]);
    return r?.blockHash ? this.withBlock(txid, r) : null;
  }

  /**
   * The receipt as any of the network's URLs has it: asked of every URL, the
   * first found wins. Null only when every URL answered and none has it; a
   * URL that could not answer makes it a ChainUnavailableError (no proof).
   */
  async sentReceiptOnEveryNode(txid: string): Promise<SentReceipt | null> {
    const answers = await this.pool.onEvery<RpcReceipt | null>('eth_getTransactionReceipt', [txid]);
    const found = answers.find((a) => a.value?.blockHash);
    if (found) return this.withBlock(txid, found.value!);
    const failed = answers.find((a) => a.error);
    if (failed) throw failed.error instanceof ChainUnavailableError ? failed.error : new ChainUnavailableError(this.network, 'bad_response', String(failed.error));
    return null;
  }

  async agreedReceipt(txid: string): Promise<SentReceipt | null> {
    const answers = await this.pool.onEvery<RpcReceipt | null>('eth_getTransactionReceipt', [txid]);
    const receipts = answers.filter((a) => a.value?.blockHash).map((a) => a.value!);
    // Two URLs must show it when two are configured: a URL that cannot answer, or refuses the method, is no
    // agreement (else one hostile URL decides whenever the other hiccups); the network waits instead.
    if (receipts.length === 0 || receipts.length < Math.min(2, this.pool.urls.length)) return null;
    const first = receipts[0]!;
    if (receipts.some((r) => r.blockHash.toLowerCase() !== first.blockHash.toLowerCase() || r.status !== first.status)) return null;
    return this.withBlock(txid, first);
  }

  async revertedOnEveryNode(txid: string): Promise<boolean> {
    const answers = await this.pool.onEvery<RpcReceipt | null>('eth_getTransactionReceipt', [txid]);
    const hashes = new Set(answers.map((a) => (a.value?.blockHash && a.value.status === '0x0' ? a.value.blockHash.toLowerCase() : null)));
    return answers.length > 0 && hashes.size === 1 && !hashes.has(null);
  }

  async nativeBalance(address: string, at?: bigint): Promise<bigint> {
    return BigInt(await this.call<Hex>('eth_getBalance', [address, at === undefined ? 'latest' : hex(at)]));
  }

  private contractOf(asset: Asset): Hex {
    for (const [contract, a] of this.tokenByContract) if (a === asset) return contract as Hex;
    throw new Error(`${this.network}: no contract is configured for ${asset}`);
  }

  async tokenBalance(asset: Asset, address: string, at?: bigint): Promise<bigint> {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [address as Hex] });
    const out = await this.call<Hex>('eth_call', [{ to: this.contractOf(asset), data }, at === undefined ? 'latest' : hex(at)]);
    return out === '0x' ? 0n : BigInt(out);
  }

  async feeQuote(): Promise<EvmFees> {
    const [latest, tip] = await Promise.all([
      this.call<RpcBlock | null>('eth_getBlockByNumber', ['latest', false]),
      this.call<Hex>('eth_maxPriorityFeePerGas', []).then(BigInt, () => 1_000_000_000n),
    ]);
    const base = BigInt(latest?.baseFeePerGas ?? '0x0');
    // Room for the base fee to double before the transaction is mined (it rises at most 12.5 % per block).
    return { maxFeePerGas: 2n * base + tip, maxPriorityFeePerGas: tip };
  }

  private callOf(call: TransferCall): { to: Hex; value: bigint; data: Hex | undefined } {
    if (call.asset === 'TRX') throw new Error(`${this.network}: TRX is not sent on an EVM chain`);
    if (ASSET_SPECS[call.asset].native) return { to: call.to as Hex, value: call.amount, data: undefined };
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [call.to as Hex, call.amount] });
    return { to: this.contractOf(call.asset), value: 0n, data };
  }

  /**
   * The node's estimate with a margin. A revert refuses the transfer for good
   * (TransferRefused, the withdrawal fails) only on proof read in one block,
   * pinned by its hash (EIP-1898) REFUSAL_PROOF_DEPTH blocks below the head so
   * that every backend of a pool has it: the estimate reverts there too, and
   * there the sender holds the amount. A backend behind the treasury's top-up,
   * or one whose head is a sibling without it, reverts for want of balance;
   * that is a node behind, and the transfer waits. (Pinned by number, the two
   * reads could come from two blocks of one height.)
   */
  async gasLimit(call: TransferCall): Promise<bigint> {
    if (isNativeCurrency(call.asset)) return NATIVE_TRANSFER_GAS;
    const { to, data } = this.callOf(call);
    try {
      const estimate = BigInt(await this.call<Hex>('eth_estimateGas', [{ from: call.from, to, data }, 'latest']));
      return (estimate * (100n + GAS_LIMIT_MARGIN_PERCENT) + 99n) / 100n;
    } catch (err) {
      if (!isRevert(err)) throw err;
      const head = BigInt(await this.call<Hex>('eth_blockNumber', []));
      const block = await this.call<RpcBlock | null>('eth_getBlockByNumber', [hex(head > REFUSAL_PROOF_DEPTH ? head - REFUSAL_PROOF_DEPTH : 0n), false]);
      if (!block?.hash) throw new ChainUnavailableError(this.network, 'node_behind', `eth_getBlockByNumber ${head - REFUSAL_PROOF_DEPTH}: no block`);
      const pin = { blockHash: block.hash };
      const where = `block ${BigInt(block.number)} (${block.hash})`;
      const behind = (why: string) => new ChainUnavailableError(this.network, 'node_behind', `${call.asset} transfer from ${call.from} reverted at the head; in ${where} ${why}: not a refusal yet`);
      const proof = await this.call<Hex>('eth_estimateGas', [{ from: call.from, to, data }, pin]).then(
        () => null,
        (e: unknown) => {
          if (isRevert(e)) return e as JsonRpcFailure;
          throw e;
        },
      );
      if (!proof) throw behind('it passes (a backend behind, or a refusal newer than the proof depth)');
      const out = await this.call<Hex>('eth_call', [{ to, data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [call.from as Hex] }) }, pin]);
      const held = out === '0x' ? 0n : BigInt(out);
      if (held < call.amount) throw behind(`the sender held ${held} of the ${call.amount} (a backend behind its funding)`);
      throw new TransferRefused(this.network, `${this.network}: the ${call.asset} contract refuses the transfer from ${call.from} to ${call.to} (a blocked address or a paused token): ${proof.failure.text.slice(0, 200)}`);
    }
  }

  /** The nonce decides on EVM: no expiring transactions. */
  async finalizedTime(): Promise<null> {
    return null;
  }

  /** Gas is a limit times fees on EVM, not a burn estimate. */
  async burnEstimate(): Promise<null> {
    return null;
  }

  async minedNonce(address: string): Promise<bigint> {
    return BigInt(await this.call<Hex>('eth_getTransactionCount', [address, 'latest']));
  }

  /**
   * The address's transactions in blocks with at least `confirmations`
   * confirmations at `head` (the state of block head - confirmations + 1):
   * a nonce counted here is taken for good unless the chain reorgs deeper.
   * A backend without that block errs (header not found), never answers less.
   */
  async nonceHolder(address: string, nonce: bigint, head: bigint): Promise<string | null> {
    try {
      const count = async (n: bigint) => BigInt(await this.call<Hex>('eth_getTransactionCount', [address, hex(n)]));
      let hi = head;
      let lo = head > NONCE_SEARCH_BLOCKS ? head - NONCE_SEARCH_BLOCKS : 0n;
      if ((await count(hi)) <= nonce || (await count(lo)) > nonce) return null;
      // The first block whose state counts the nonce used: the transaction is in it.
      while (hi - lo > 1n) {
        const mid = (lo + hi) / 2n;
        if ((await count(mid)) > nonce) hi = mid;
        else lo = mid;
      }
      const block = await this.call<{ transactions?: { hash: string; from: string; nonce: Hex }[] } | null>('eth_getBlockByNumber', [hex(hi), true]);
      const found = block?.transactions?.find((t) => t.from.toLowerCase() === address.toLowerCase() && BigInt(t.nonce) === nonce);
      return found ? found.hash.toLowerCase() : null;
    } catch (err) {
      if (err instanceof ChainUnavailableError || err instanceof JsonRpcFailure) return null; // no proof to be had now
      throw err;
    }
  }

  async settledNonce(address: string, head: bigint, confirmations: number): Promise<bigint> {
    const at = head - BigInt(Math.max(confirmations, 1)) + 1n;
    return BigInt(await this.call<Hex>('eth_getTransactionCount', [address, hex(at < 0n ? 0n : at)]));
  }

  private chainId: Promise<number> | undefined;

  async sign(tx: UnsignedTransfer, sign: SignDigest): Promise<SignedTransaction> {
    if (tx.stake) throw new Error(`${this.network}: staking for energy is TRON's; an EVM network signs transfers only`);
    if (tx.nonce === null || tx.gasLimit === null || tx.fees === null) throw new Error(`${this.network}: a transaction needs a nonce, a gas limit and fees`);
    // Signed for the network's own chain id when it is known: a node of another chain then refuses the bytes.
    // A failed lookup is not kept: the next signature asks again (a node down once must not stop signing for good).
    this.chainId ??= this.expectedChainId !== undefined
      ? Promise.resolve(this.expectedChainId)
      : this.call<Hex>('eth_chainId', [])
          .then((id) => Number(BigInt(id)))
          .catch((err: unknown) => {
            this.chainId = undefined;
            throw err;
          });
    const chainId = await this.chainId;
    const { to, value, data } = this.callOf(tx);
    const unsigned: TransactionSerializableEIP1559 = {
      type: 'eip1559',
      chainId,
      nonce: Number(tx.nonce),
      to,
      value,
      data,
      gas: tx.gasLimit,
      maxFeePerGas: tx.fees.maxFeePerGas,
      maxPriorityFeePerGas: tx.fees.maxPriorityFeePerGas,
    };
    const sig = await sign(keccak256(serializeTransaction(unsigned), 'bytes'));
    const raw = serializeTransaction(unsigned, {
      r: numberToHex(sig.r, { size: 32 }),
      s: numberToHex(sig.s, { size: 32 }),
      yParity: sig.recovery,
    });
    return { txid: keccak256(raw), raw, expiresAt: null };
  }

  async broadcast(raw: string): Promise<'accepted' | 'known'> {
    try {
      await this.call('eth_sendRawTransaction', [raw as Hex]);
      return 'accepted';
    } catch (err) {
      if (err instanceof ChainUnavailableError) throw err;
      const text = err instanceof JsonRpcFailure ? err.failure.text : String(err);
      if (KNOWN_TX.test(text)) return 'known';
      const refusal = REFUSALS.find(([re]) => re.test(text));
      throw new BroadcastRejected(refusal?.[1] ?? 'invalid', `${this.network}: ${text.trim().slice(0, 300)}`);
    }
  }
}
