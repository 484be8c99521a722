// The sandbox token's ABI and bytecode (compiled once by
// scripts/compile-sandbox-token.ts and committed), and how the local chains
// deploy it: from the fixed deployer, in the order of ADR 0013, so the
// addresses equal SANDBOX_TESTNET_CONTRACTS.
import { createPublicClient, createWalletClient, getAddress, getContractAddress, http, type Abi, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import artifact from './sandbox-token-artifact.json' with { type: 'json' };

export const SANDBOX_TOKEN_ABI = artifact.abi as Abi;
export const SANDBOX_TOKEN_BYTECODE = artifact.bytecode as Hex;

/** anvil's well-known account #9 (test mnemonic): the deployer of ADR 0013. Public, local chains only. */
export const SANDBOX_DEPLOYER_KEY: Hex = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6';

export interface TokenSpec {
  name: string;
  symbol: string;
  decimals: number;
}

/**
 * Deploys `tokens` in order from the deployer, whose nonce must be 0 (a fresh
 * chain); a chain that already has code at every expected address is left
 * as it is. Returns the contract addresses in order. A node that charges no
 * gas (the TRON stand-in's) takes `gasPrice: 0n`.
 */
export async function deploySandboxTokens(rpcUrl: string, tokens: TokenSpec[], opts: { gasPrice?: bigint } = {}): Promise<Address[]> {
  const account = privateKeyToAccount(SANDBOX_DEPLOYER_KEY);
  const transport = http(rpcUrl);
  const pub = createPublicClient({ transport, cacheTime: 0 });
  const chainId = await pub.getChainId();
  const chain = { id: chainId, name: 'sandbox', nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } };
  const wallet = createWalletClient({ account, transport, chain });
  const nonce = await pub.getTransactionCount({ address: account.address });
  const addresses: Address[] = [];
  if (nonce !== 0) {
    // Deployed on an earlier run: the addresses follow from the nonces; check each has code.
    for (let i = 0; i < tokens.length; i++) {
      const address = getContractAddress({ from: account.address, nonce: BigInt(i) });
      const code = await pub.getCode({ address });
      if (!code || code === '0x') throw new Error(`the sandbox token ${tokens[i]!.symbol} is missing at ${address} on ${rpcUrl}`);
      addresses.push(address);
    }
    return addresses;
  }
  for (const t of tokens) {
    const hash = await wallet.deployContract({ abi: SANDBOX_TOKEN_ABI, bytecode: SANDBOX_TOKEN_BYTECODE, args: [t.name, t.symbol, t.decimals], ...(opts.gasPrice !== undefined ? { gasPrice: opts.gasPrice } : {}) });
    const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying ${t.symbol} failed`);
    addresses.push(getAddress(receipt.contractAddress));
  }
  return addresses;
}
