// HD derivation paths (docs/operations.md#custody-and-address-derivation):
// BIP-44 m/44'/coin'/account'/0/index, coin 60 for ETH and BSC and 195 for
// TRON. Each (workspace, network) gets its own account from ONE global
// sequence, so no two workspaces or networks ever share an address; account 0
// is reserved for the service's own addresses (treasury, gas tank, faucet
// dispenser), which use the change branch 1 of it.
import type { BaseChain } from '../money/networks.js';

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

/** The service's own addresses per chain: index r of m/44'/coin'/0'/1/r, by role. */
export const SERVICE_ROLES = { treasury: 0, gasTank: 1, faucet: 2 } as const;
export type ServiceRole = keyof typeof SERVICE_ROLES;

export const servicePath = (chain: BaseChain, role: ServiceRole): DerivationPath => ({
  coinType: coinTypeOf(chain),
  account: SERVICE_ACCOUNT,
  change: 1,
  index: SERVICE_ROLES[role],
});
