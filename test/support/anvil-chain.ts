// A local anvil with the sandbox tokens, for tests: start it, send token and
// native transfers from an outside account, mine, and reorg.
import { createWalletClient, http, parseAbi, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { rpc, startAnvil, type RunningAnvil } from '../../src/adapters/sandbox/anvil.js';
import { deploySandboxTokens } from '../../src/adapters/sandbox/contracts/sandbox-token.js';
import { freePort } from './free-port.js';

/** anvil's well-known account #1 (test mnemonic): the outside sender of the tests. */
export const OUTSIDE_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
export const OUTSIDE = privateKeyToAccount(OUTSIDE_KEY).address;
const ERC20 = parseAbi([
  'function mint(address to, uint256 value) returns (bool)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function setBlocked(address account, bool value)',
]);

export interface TestChain {
  anvil: RunningAnvil;
  tokens: Address[];
  /** Mints `amount` to the sender, then transfers it to `to` (two transactions); returns the transfer's hash. */
  sendToken(token: Address, to: string, amount: bigint): Promise<Hex>;
  sendNative(to: string, amount: bigint): Promise<Hex>;
  /**
   * Puts `account` on (or off) the token's blocklist: transfers from or to it revert. Paid with a tip
   * of 100 gwei, so that in the next block it runs before anything else waiting.
   */
  setBlocked(token: Address, account: string, blocked: boolean): Promise<Hex>;
  mine(blocks?: number): Promise<void>;
  blockNumber(): Promise<bigint>;
  stop(): Promise<void>;
}

/** A block every few milliseconds, like a live chain, that a test can pause. */
export interface AutoMiner {
  start(): void;
  /**
   * Resolves once no block can come any more: the mines already sent are waited for. On a loaded machine a
   * mine sent just before the pause would otherwise include what the test meant to keep out of a block.
   */
  pause(): Promise<void>;
}

export function autoMine(chain: TestChain, everyMs = 250): AutoMiner {
  let timer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<unknown>>();
  return {
    start() {
      if (timer) clearInterval(timer);
      timer = setInterval(() => {
        const mined = chain.mine().catch(() => undefined);
        inFlight.add(mined);
        void mined.finally(() => inFlight.delete(mined));
      }, everyMs);
    },
    async pause() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await Promise.all([...inFlight]);
    },
  };
}

export async function startTestChain(opts: { chainId: number; decimals: number[] }): Promise<TestChain> {
  const anvil = await startAnvil({ port: await freePort(), chainId: opts.chainId });
  const tokens = await deploySandboxTokens(
    anvil.rpcUrl,
    opts.decimals.map((d, i) => ({ name: `Token ${i}`, symbol: `T${i}`, decimals: d })),
  );
  // Blocks only when the test says so, from here on.
  await rpc(anvil.rpcUrl, 'evm_setAutomine', [false]);
  const chain = { id: opts.chainId, name: 'test', nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [anvil.rpcUrl] } } };
  const wallet = createWalletClient({ account: privateKeyToAccount(OUTSIDE_KEY), transport: http(anvil.rpcUrl), chain });
  const gas = 100_000n;
  return {
    anvil,
    tokens,
    async sendToken(token, to, amount) {
      await wallet.writeContract({ address: token, abi: ERC20, functionName: 'mint', args: [OUTSIDE, amount], gas });
      return wallet.writeContract({ address: token, abi: ERC20, functionName: 'transfer', args: [to as Address, amount], gas });
    },
    sendNative: (to, amount) => wallet.sendTransaction({ to: to as Address, value: amount, gas: 21_000n }),
    setBlocked: (token, account, blocked) =>
      wallet.writeContract({ address: token, abi: ERC20, functionName: 'setBlocked', args: [account as Address, blocked], gas, maxPriorityFeePerGas: 100_000_000_000n, maxFeePerGas: 200_000_000_000n }),
    async mine(blocks = 1) {
      await rpc(anvil.rpcUrl, 'anvil_mine', [`0x${blocks.toString(16)}`]);
    },
    async blockNumber() {
      return BigInt(await rpc<string>(anvil.rpcUrl, 'eth_blockNumber'));
    },
    stop: () => anvil.stop(),
  };
}
