// HD derivation paths (docs/operations.md#custody-and-address-derivation):
// BIP-44 m/44'/coin'/account'/0/index, coin 60 for ETH and BSC and 195 for
// TRON. Each (workspace, network) gets its own account from ONE global
// sequence, so no two workspaces or networks ever share an address; account 0
// is reserved for the service's own addresses (treasury, gas tank, faucet
// dispenser), which use the change branch 1 of it, each network its own
// (ADR 0024).
import { baseChainOf, type BaseChain, type Network } from '../money/networks.js';

export const SERVICE_ACCOUNT = 0;
export const FIRST_WORKSPACE_ACCOUNT = 1;
/** BIP-32 hardened indexes stop at 2^31 - 1. */
export const MAX_INDEX = 2 ** 31 - 1;

export type CoinType = 60 | 195;

export const coinTypeOf = (chain: BaseChain): CoinType => (chain === 'TRON' ? 195 : 60);

export interface DerivationPath {
  coinType: CoinType;
  account: number;
  /** 0 for deposit addresses, 1 for the service's own addresses. */
  change: 0 | 1;
  index: number;
}

export const formatPath = (p: DerivationPath): string => `m/44'/${p.coinType}'/${p.account}'/${p.change}/${p.index}`;

export const depositPath = (chain: BaseChain, account: number, index: number): DerivationPath => ({
  coinType: coinTypeOf(chain),
  account,
  change: 0,
  index,
});

/** The service's own addresses, by role: the last digit of their index (energy: TRON's Stake 2.0 account, issue 34). */
export const SERVICE_ROLES = { treasury: 0, gasTank: 1, faucet: 2, energy: 3 } as const;
export type ServiceRole = keyof typeof SERVICE_ROLES;

/** The roles a network has: the energy account is TRON's alone (EVM networks pay gas, they stake nothing). */
export const serviceRolesOf = (network: Network): ServiceRole[] =>
  (Object.keys(SERVICE_ROLES) as ServiceRole[]).filter((r) => r !== 'energy' || baseChainOf(network) === 'TRON');

/**
 * Each network's tens in the service's index: m/44'/coin'/0'/1/(10·slot + role),
 * so no two networks share a treasury, gas tank or faucet dispenser, not even
 * ETH and BSC (one coin type) or a mainnet and its testnet. Indexes 0 to 9
 * were the shared addresses of earlier versions and are never used again
 * (ADR 0024).
 */
export const SERVICE_NETWORK_SLOTS: Record<Network, number> = {
  TRON_MAINNET: 1,
  TRON_TESTNET: 2,
  BSC_MAINNET: 3,
  BSC_TESTNET: 4,
  ETH_MAINNET: 5,
  ETH_TESTNET: 6,
};

export const servicePath = (network: Network, role: ServiceRole): DerivationPath => ({
  coinType: coinTypeOf(baseChainOf(network)),
  account: SERVICE_ACCOUNT,
  change: 1,
  index: 10 * SERVICE_NETWORK_SLOTS[network] + SERVICE_ROLES[role],
});

/** The inverse of formatPath; throws on anything else. */
export function parsePath(text: string): DerivationPath {
  const m = /^m\/44'\/(60|195)'\/(\d+)'\/([01])\/(\d+)$/.exec(text);
  const account = m ? Number(m[2]) : NaN;
  const index = m ? Number(m[4]) : NaN;
  if (!m || account > MAX_INDEX || index > MAX_INDEX) throw new Error(`not a derivation path of the service: ${text}`);
  return { coinType: Number(m[1]) as CoinType, account, change: m[3] === '1' ? 1 : 0, index };
}
