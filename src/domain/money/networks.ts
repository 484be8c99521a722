// The vocabulary of chains, networks and assets (docs/api.md#networks-and-assets;
// decimal places: docs/api.md#amounts).
export const BASE_CHAINS = ['TRON', 'BSC', 'ETH'] as const;
export type BaseChain = (typeof BASE_CHAINS)[number];

export const NETWORKS = [
  'TRON_MAINNET',
  'TRON_TESTNET',
  'BSC_MAINNET',
  'BSC_TESTNET',
  'ETH_MAINNET',
  'ETH_TESTNET',
] as const;
export type Network = (typeof NETWORKS)[number];

export const ASSETS = ['USDT_TRON', 'USDT_BSC', 'USDT_ETH', 'USDC_ETH', 'EURC_ETH', 'ETH', 'BNB'] as const;
export type Asset = (typeof ASSETS)[number];

/** A key acts on one side: live keys on mainnets, test keys on testnets (docs/api.md#live-and-test-keys). */
export type NetworkSide = 'live' | 'test';

export interface AssetSpec {
  asset: Asset;
  /** Decimal places on the wire (docs/api.md#amounts). */
  apiDecimals: number;
  /** Decimal places of the on-chain representation. */
  chainDecimals: number;
  native: boolean;
}

export const ASSET_SPECS: Record<Asset, AssetSpec> = {
  USDT_TRON: { asset: 'USDT_TRON', apiDecimals: 6, chainDecimals: 6, native: false },
  USDT_BSC: { asset: 'USDT_BSC', apiDecimals: 6, chainDecimals: 18, native: false },
  USDT_ETH: { asset: 'USDT_ETH', apiDecimals: 6, chainDecimals: 6, native: false },
  USDC_ETH: { asset: 'USDC_ETH', apiDecimals: 6, chainDecimals: 6, native: false },
  EURC_ETH: { asset: 'EURC_ETH', apiDecimals: 6, chainDecimals: 6, native: false },
  ETH: { asset: 'ETH', apiDecimals: 18, chainDecimals: 18, native: true },
  BNB: { asset: 'BNB', apiDecimals: 18, chainDecimals: 18, native: true },
};

/** Chain/asset compatibility (docs/api.md#networks-and-assets); EURC_ETH is allowed on ETH. */
export const CHAIN_ASSETS: Record<BaseChain, readonly Asset[]> = {
  TRON: ['USDT_TRON'],
  BSC: ['USDT_BSC', 'BNB'],
  ETH: ['USDT_ETH', 'USDC_ETH', 'EURC_ETH', 'ETH'],
};

export const isAssetOnChain = (chain: BaseChain, asset: Asset): boolean => CHAIN_ASSETS[chain].includes(asset);

export const networkFor = (chain: BaseChain, side: NetworkSide): Network =>
  `${chain}_${side === 'live' ? 'MAINNET' : 'TESTNET'}` as Network;

export const baseChainOf = (network: Network): BaseChain => network.split('_')[0] as BaseChain;

export const sideOf = (network: Network): NetworkSide => (network.endsWith('_MAINNET') ? 'live' : 'test');

export const networksOfSide = (side: NetworkSide): Network[] => BASE_CHAINS.map((c) => networkFor(c, side));

/** The native asset of the network that the API knows (ETH, BNB); null on TRON, whose TRX is not an asset of the API. */
export const nativeAssetOf = (network: Network): Asset | null => CHAIN_ASSETS[baseChainOf(network)].find((a) => ASSET_SPECS[a].native) ?? null;

/** The currency that pays for gas on each chain, with its decimal places on chain (TRX included, which is not an API asset). */
export const NATIVE_CURRENCY: Record<BaseChain, { symbol: 'ETH' | 'BNB' | 'TRX'; decimals: number }> = {
  ETH: { symbol: 'ETH', decimals: 18 },
  BSC: { symbol: 'BNB', decimals: 18 },
  TRON: { symbol: 'TRX', decimals: 6 },
};

/**
 * What the service moves on chain: the API's assets, and TRX, TRON's native
 * currency, which the gas tank sends and transactions burn but which is not
 * an asset of the API.
 */
export type ChainAsset = Asset | 'TRX';

/** Whether a chain asset is its network's native currency (ETH, BNB, TRX) rather than a token. */
export const isNativeCurrency = (asset: ChainAsset): boolean => asset === 'TRX' || ASSET_SPECS[asset].native;

/** What the ledger counts: the API's assets, and TRX, which only the service's gas accounts hold. */
export type LedgerCurrency = ChainAsset;

/** The network's native currency, in which its gas is paid and booked, in its on-chain base units (wei, sun). */
export const gasCurrencyOf = (network: Network): ChainAsset => NATIVE_CURRENCY[baseChainOf(network)].symbol;
