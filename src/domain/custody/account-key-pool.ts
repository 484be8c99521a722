// The pool of account xpubs the chain-worker keeps recorded ahead of the
// account sequence, so the api can derive the first address of a new account
// without the seed (docs/adr/0026-keys-only-where-signing-happens.md).
import type { CoinType } from './derivation.js';

export const ACCOUNT_KEY_POOL = {
  /** Accounts past the sequence's last value with a recorded xpub, per coin type, after a refill. */
  size: 200,
  /** Below this many, the api asks for a refill when it opens an account. */
  lowWater: 100,
} as const;

export const COIN_TYPES: readonly CoinType[] = [60, 195];
