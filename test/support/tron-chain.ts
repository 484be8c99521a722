// The TRON stand-in with a USDT for tests: transfers signed by an outside
// account with tronweb and broadcast through the stand-in's HTTP API, blocks
// mined when the test says so, and rollbacks.
import { TronWeb } from 'tronweb';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { deploySandboxTokens } from '../../src/adapters/sandbox/contracts/sandbox-token.js';
import { startTronStandin, type RunningTronStandin, type TronStandinOptions } from '../../src/adapters/sandbox/tron-standin.js';
import { freePort } from './free-port.js';

/** anvil's well-known account #2 (test mnemonic): the outside TRON sender of the tests. */
export const TRON_OUTSIDE_KEY = '5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';

export interface TestTron {
  standin: RunningTronStandin;
  /** The USDT contract, base58. */
  token: string;
  tronWeb: TronWeb;
  /** The outside account, base58. */
  outside: string;
  /** Builds (through the node), signs and broadcasts a TRC-20 call; returns the node's answer and the signed transaction. */
  callToken(fn: string, params: { type: string; value: string }[], token?: string): Promise<{ txid: string; result: boolean; signed: Record<string, unknown> }>;
  /** Mints `amount` to the outside account, then transfers it to `to` (two transactions); returns the transfer's txid. */
  sendToken(to: string, amount: bigint, token?: string): Promise<string>;
  /** Deploys another token (not configured in the adapter) and returns its base58 address. */
  otherToken(): Promise<string>;
  mine(blocks?: number): Promise<void>;
  stop(): Promise<void>;
}

/** `options`: the stand-in's resource settings and state file (a shortened window, a kept state). */
export async function startTestTron(options: Omit<TronStandinOptions, 'port' | 'blockTimeSeconds'> = {}): Promise<TestTron> {
  const standin = await startTronStandin({ port: await freePort(), blockTimeSeconds: null, ...options });
  const node = standin.anvil.rpcUrl;
  const [usdt] = await deploySandboxTokens(node, [{ name: 'Tether', symbol: 'USDT', decimals: 6 }], { gasPrice: 0n });
  const tronWeb = new TronWeb({ fullHost: standin.url, privateKey: TRON_OUTSIDE_KEY });
  const outside = tronWeb.defaultAddress.base58 as string;
  await rpc(node, 'anvil_setBalance', [`0x${(tronWeb.defaultAddress.hex as string).slice(2)}`, `0x${(1_000_000n * 10n ** 6n).toString(16)}`]);
  // Blocks only when the test says so, from here on.
  await rpc(node, 'evm_setAutomine', [false]);
  const token = TronWeb.address.fromHex(`41${usdt!.slice(2)}`);
  let deployed = 1;
  const callToken: TestTron['callToken'] = async (fn, params, on = token) => {
    const built = await tronWeb.transactionBuilder.triggerSmartContract(on, fn, { feeLimit: 100_000_000 }, params, outside);
    const signed = (await tronWeb.trx.sign(built.transaction)) as unknown as Record<string, unknown>;
    const sent = (await tronWeb.trx.sendRawTransaction(signed as never)) as { result?: boolean };
    return { txid: built.transaction.txID, result: sent.result === true, signed };
  };
  return {
    standin,
    token,
    tronWeb,
    outside,
    callToken,
    async sendToken(to, amount, on = token) {
      const minted = await callToken('mint(address,uint256)', [{ type: 'address', value: outside }, { type: 'uint256', value: amount.toString() }], on);
      if (!minted.result) throw new Error('mint refused');
      const sent = await callToken('transfer(address,uint256)', [{ type: 'address', value: to }, { type: 'uint256', value: amount.toString() }], on);
      if (!sent.result) throw new Error('transfer refused');
      return sent.txid;
    },
    async otherToken() {
      // The deployer's next nonce: a new contract at a new address.
      const { createWalletClient, http } = await import('viem');
      const { privateKeyToAccount } = await import('viem/accounts');
      const { SANDBOX_DEPLOYER_KEY, SANDBOX_TOKEN_ABI, SANDBOX_TOKEN_BYTECODE } = await import('../../src/adapters/sandbox/contracts/sandbox-token.js');
      const chain = { id: standin.anvil.chainId, name: 't', nativeCurrency: { name: 'TRX', symbol: 'TRX', decimals: 6 }, rpcUrls: { default: { http: [node] } } };
      const wallet = createWalletClient({ account: privateKeyToAccount(SANDBOX_DEPLOYER_KEY), transport: http(node), chain });
      const hash = await wallet.deployContract({ abi: SANDBOX_TOKEN_ABI, bytecode: SANDBOX_TOKEN_BYTECODE, args: [`Other ${deployed}`, 'OTH', 6], gasPrice: 0n });
      deployed++;
      await rpc(node, 'anvil_mine', ['0x1']);
      const receipt = await rpc<{ contractAddress: string }>(node, 'eth_getTransactionReceipt', [hash]);
      return TronWeb.address.fromHex(`41${receipt.contractAddress.slice(2)}`);
    },
    async mine(blocks = 1) {
      await rpc(node, 'anvil_mine', [`0x${blocks.toString(16)}`]);
    },
    stop: () => standin.stop(),
  };
}
