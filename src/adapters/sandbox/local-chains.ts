// The local chains of `npm start` (docs/operations.md#the-local-sandbox): an
// anvil for ETH_TESTNET (chain id 11155111) and one for BSC_TESTNET (97), and
// the TRON stand-in for TRON_TESTNET (ADR 0023), each mining a block every
// second, their state kept in DATA_DIR/chains so a restart continues the same
// chains. Each gets the sandbox stablecoins
// (ADR 0013 order and addresses), funded service addresses (gas tank,
// treasury, faucet dispenser) and an outside account that is not the
// service's, which holds native currency and may mint the tokens; all of it
// is written to DATA_DIR/sandbox.json (sandbox-file.ts). Never on the
// production path.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createWalletClient, encodeFunctionData, http, parseAbi, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Asset, Network } from '../../domain/money/networks.js';
import { evmAddressFromBytes, evmBytesFromTronAddress, tronAddressFromEvmBytes } from '../chains/address-codec.js';
import { rpc, startAnvil, type RunningAnvil } from './anvil.js';
import { SANDBOX_DEPLOYER_KEY, deploySandboxTokens, type TokenSpec } from './contracts/sandbox-token.js';
import { startTronStandin, type RunningTronStandin, type TronStandinOptions } from './tron-standin.js';
import { writeSandboxNetworks, type SandboxFile, type SandboxNetwork } from './sandbox-file.js';

/** anvil's well-known account #8 (test mnemonic): the sandbox's outside account. Public, local chains only. */
export const OUTSIDE_ACCOUNT_KEY: Hex = '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97';
/**
 * anvil's well-known account #9: the sandbox's cold storage, an outside account whose key the service never
 * holds (`ops treasury policy set --cold-address` names it; `npm run sandbox -- send --from cold` refills
 * from it, sending what it holds). Public, local chains only.
 */
export const COLD_ACCOUNT_KEY: Hex = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6';

export interface LocalChainSpec {
  network: Extract<Network, 'ETH_TESTNET' | 'BSC_TESTNET'>;
  chainId: number;
  port: number;
  tokens: { asset: Asset; spec: TokenSpec }[];
}

export const LOCAL_EVM_CHAINS: Omit<LocalChainSpec, 'port'>[] = [
  {
    network: 'ETH_TESTNET',
    chainId: 11155111,
    tokens: [
      { asset: 'USDT_ETH', spec: { name: 'Tether USD (sandbox)', symbol: 'USDT', decimals: 6 } },
      { asset: 'USDC_ETH', spec: { name: 'USD Coin (sandbox)', symbol: 'USDC', decimals: 6 } },
      { asset: 'EURC_ETH', spec: { name: 'Euro Coin (sandbox)', symbol: 'EURC', decimals: 6 } },
    ],
  },
  {
    network: 'BSC_TESTNET',
    chainId: 97,
    tokens: [{ asset: 'USDT_BSC', spec: { name: 'Tether USD (sandbox)', symbol: 'USDT', decimals: 18 } }],
  },
];

export interface RunningLocalChains {
  rpcUrls: Partial<Record<Network, string>>;
  file: SandboxFile;
  stop(): Promise<void>;
}

export type TronStandinTimings = Pick<TronStandinOptions, 'resourceWindowSeconds' | 'unfreezeDelaySeconds'>;

/**
 * The TRON stand-in's timings from the sandbox's environment: TRON_STANDIN_RESOURCE_WINDOW_SECONDS (how long
 * used energy and bandwidth take to come back) and TRON_STANDIN_UNFREEZE_DELAY_SECONDS (how long unstaked TRX
 * waits), each a positive whole number of seconds; unset keeps TRON's.
 */
export function tronStandinTimingsFromEnv(env: NodeJS.ProcessEnv): TronStandinTimings {
  const seconds = (name: string): number | undefined => {
    const text = env[name];
    if (text === undefined || text === '') return undefined;
    if (!/^[1-9]\d{0,9}$/.test(text)) throw new Error(`${name}: a positive whole number of seconds, not ${text}`);
    return Number(text);
  };
  return { resourceWindowSeconds: seconds('TRON_STANDIN_RESOURCE_WINDOW_SECONDS'), unfreezeDelaySeconds: seconds('TRON_STANDIN_UNFREEZE_DELAY_SECONDS') };
}

/** Native currency given to each service address and the outside account (wei). */
const NATIVE_FUNDING = 10_000n * 10n ** 18n;
/** TRX given to each service address and the cold account on the TRON stand-in (sun). */
const TRX_FUNDING = 10_000n * 10n ** 6n;
/**
 * TRX the outside account holds on the TRON stand-in (sun): enough to send the energy account the stake
 * docs/operations.md#tron-energy sizes (its worked example stakes 3,575,000 TRX), with tronweb.
 */
const OUTSIDE_TRX_FUNDING = 10_000_000n * 10n ** 6n;
/**
 * TRX the energy account starts with on the stand-in (ADR 0035): `ops energy stake` works at once, for about 140
 * sweeps a day at the stand-in's mainnet-like 10 energy per staked TRX (a 24-hour window unless shortened).
 */
const ENERGY_TRX_FUNDING = 1_000_000n * 10n ** 6n;
const USDT_TRON: TokenSpec = { name: 'Tether USD (sandbox)', symbol: 'USDT', decimals: 6 };
/** Tokens the faucet dispenser holds from the start, in whole units. */
const FAUCET_TOKENS = 1_000_000n;

const ERC20 = parseAbi(['function mint(address to, uint256 value) returns (bool)', 'function balanceOf(address owner) view returns (uint256)']);

/** The token balance of `owner` on the node (for the faucet's stock). */
async function tokenBalance(rpcUrl: string, token: Address, owner: string): Promise<bigint> {
  const data = encodeFunctionData({ abi: ERC20, functionName: 'balanceOf', args: [owner as Address] });
  return BigInt(await rpc<string>(rpcUrl, 'eth_call', [{ to: token, data }, 'latest']));
}

async function setUp(anvil: RunningAnvil, spec: LocalChainSpec, serviceAddresses: string[]): Promise<SandboxNetwork> {
  const deployer = privateKeyToAccount(SANDBOX_DEPLOYER_KEY);
  // A fresh chain gets its tokens; a kept one has them.
  const addresses = await deploySandboxTokens(
    anvil.rpcUrl,
    spec.tokens.map((t) => t.spec),
  );
  const outside = privateKeyToAccount(OUTSIDE_ACCOUNT_KEY);
  const cold = privateKeyToAccount(COLD_ACCOUNT_KEY);
  for (const a of [...serviceAddresses, outside.address, cold.address]) {
    const balance = BigInt(await rpc<string>(anvil.rpcUrl, 'eth_getBalance', [a, 'latest']));
    if (balance < NATIVE_FUNDING / 2n) await rpc(anvil.rpcUrl, 'anvil_setBalance', [a, `0x${NATIVE_FUNDING.toString(16)}`]);
  }
  const chain = { id: spec.chainId, name: spec.network, nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [anvil.rpcUrl] } } };
  const minter = createWalletClient({ account: deployer, transport: http(anvil.rpcUrl), chain });
  const faucet = serviceAddresses[serviceAddresses.length - 1];
  if (faucet) {
    // The faucet's stock: on a fresh chain, on a kept one whose faucet address is new (ADR 0024), and
    // topped up again at each start once drips have taken half of it.
    for (const [i, a] of addresses.entries()) {
      const units = FAUCET_TOKENS * 10n ** BigInt(spec.tokens[i]!.spec.decimals);
      const held = await tokenBalance(anvil.rpcUrl, a, faucet);
      if (held >= units / 2n) continue;
      await minter.writeContract({ address: a, abi: ERC20, functionName: 'mint', args: [faucet as Address, units - held], gas: 100_000n });
    }
  }
  return {
    rpc_url: anvil.rpcUrl,
    chain_id: spec.chainId,
    tokens: Object.fromEntries(spec.tokens.map((t, i) => [t.asset, addresses[i]!])),
    outside_account: { address: outside.address, private_key: OUTSIDE_ACCOUNT_KEY },
    cold_account: { address: cold.address, private_key: COLD_ACCOUNT_KEY },
  };
}

/** The TRON stand-in's set-up: its USDT (ADR 0013's address), TRX for the service addresses (the energy account's stake too) and the outside account, the faucet's stock. */
async function setUpTron(standin: RunningTronStandin, serviceAddresses: string[], energyAccount: string | null): Promise<SandboxNetwork> {
  const node = standin.anvil.rpcUrl;
  const deployer = privateKeyToAccount(SANDBOX_DEPLOYER_KEY);
  // The stand-in charges no gas, so the deployer needs no TRX.
  const [token] = await deploySandboxTokens(node, [USDT_TRON], { gasPrice: 0n });
  const outside = privateKeyToAccount(OUTSIDE_ACCOUNT_KEY);
  const cold = privateKeyToAccount(COLD_ACCOUNT_KEY);
  const evmOf = (tron: string) => evmAddressFromBytes(evmBytesFromTronAddress(tron)!);
  const energy = energyAccount ? evmOf(energyAccount) : null;
  for (const a of [...serviceAddresses.map(evmOf), outside.address, cold.address, ...(energy ? [energy] : [])]) {
    const funding = a === outside.address ? OUTSIDE_TRX_FUNDING : a === energy ? ENERGY_TRX_FUNDING : TRX_FUNDING;
    const balance = BigInt(await rpc<string>(node, 'eth_getBalance', [a, 'latest']));
    if (balance < funding / 2n) await rpc(node, 'anvil_setBalance', [a, `0x${funding.toString(16)}`]);
  }
  const faucet = serviceAddresses[serviceAddresses.length - 1];
  const stock = FAUCET_TOKENS * 10n ** BigInt(USDT_TRON.decimals);
  const held = faucet ? await tokenBalance(node, token!, evmOf(faucet)) : 0n;
  if (faucet && held < stock / 2n) {
    const chain = { id: standin.anvil.chainId, name: 'TRON_TESTNET', nativeCurrency: { name: 'TRX', symbol: 'TRX', decimals: 6 }, rpcUrls: { default: { http: [node] } } };
    const minter = createWalletClient({ account: deployer, transport: http(node), chain });
    await minter.writeContract({ address: token!, abi: ERC20, functionName: 'mint', args: [evmOf(faucet) as Address, stock - held], gas: 100_000n, gasPrice: 0n });
  }
  const tronOf = (evm: string) => tronAddressFromEvmBytes(Buffer.from(evm.slice(2), 'hex'));
  return {
    rpc_url: standin.url,
    tokens: { USDT_TRON: tronOf(token!) },
    outside_account: { address: tronOf(outside.address), private_key: OUTSIDE_ACCOUNT_KEY.slice(2) },
    cold_account: { address: tronOf(cold.address), private_key: COLD_ACCOUNT_KEY.slice(2) },
  };
}

/**
 * Starts the chains of `specs`, each with its service addresses funded
 * (gas tank, treasury, faucet dispenser: the faucet last), and records them
 * in DATA_DIR/sandbox.json. A chain that fails to start stops the others.
 */
export async function startLocalChains(opts: {
  dataDir: string;
  host: string;
  specs: LocalChainSpec[];
  /** The TRON stand-in's HTTP port; none starts no TRON_TESTNET. */
  tronPort?: number;
  /** The TRON stand-in's resource timings (its defaults are TRON's: a 24 h window, a 14-day unfreeze delay). */
  tron?: TronStandinTimings;
  serviceAddresses: (network: Network) => Promise<string[]>;
  /** TRON's energy account (ADR 0035), given ENERGY_TRX_FUNDING on the stand-in so that it can stake at once. */
  energyAccount?: (network: Network) => Promise<string>;
}): Promise<RunningLocalChains> {
  const dir = join(opts.dataDir, 'chains');
  mkdirSync(dir, { recursive: true });
  const running: { stop(): Promise<void> }[] = [];
  const stop = async () => {
    await Promise.all(running.map((a) => a.stop()));
  };
  // The chains start side by side (each waits for its own blocks while it deploys); the first failure, in the
  // order of `specs` then TRON, is the one reported, after every node that did start is stopped.
  const tasks: Promise<[Network, SandboxNetwork, string]>[] = opts.specs.map(async (spec): Promise<[Network, SandboxNetwork, string]> => {
    const anvil = await startAnvil({
      port: spec.port,
      chainId: spec.chainId,
      host: opts.host,
      blockTimeSeconds: 1,
      stateFile: join(dir, `${spec.network.toLowerCase()}.json`),
      // Dumped every 10 s as well as on exit, so a killed sandbox loses at most that much of its chains.
      args: ['--state-interval', '10'],
    }).catch((err: unknown) => {
      throw new Error(`${spec.network}: the local node did not start on port ${spec.port} (${(err as Error).message})`, { cause: err });
    });
    running.push(anvil);
    return [spec.network, await setUp(anvil, spec, await opts.serviceAddresses(spec.network)), anvil.rpcUrl];
  });
  if (opts.tronPort !== undefined) {
    const tronPort = opts.tronPort;
    tasks.push(
      (async (): Promise<[Network, SandboxNetwork, string]> => {
        const standin = await startTronStandin({ port: tronPort, host: opts.host, stateFile: join(dir, 'tron_testnet.json'), ...opts.tron }).catch((err: unknown) => {
          throw new Error(`TRON_TESTNET: the local stand-in did not start on port ${tronPort} (${(err as Error).message})`, { cause: err });
        });
        running.push(standin);
        const energy = opts.energyAccount ? await opts.energyAccount('TRON_TESTNET') : null;
        return ['TRON_TESTNET', await setUpTron(standin, await opts.serviceAddresses('TRON_TESTNET'), energy), standin.url];
      })(),
    );
  }
  try {
    const settled = await Promise.allSettled(tasks);
    const failure = settled.find((r) => r.status === 'rejected');
    if (failure) throw failure.reason;
    const entries: SandboxFile['networks'] = {};
    const rpcUrls: Partial<Record<Network, string>> = {};
    for (const r of settled) {
      if (r.status !== 'fulfilled') continue;
      const [network, entry, url] = r.value;
      entries[network] = entry;
      rpcUrls[network] = url;
    }
    const file = writeSandboxNetworks(opts.dataDir, entries);
    return { rpcUrls, file, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
