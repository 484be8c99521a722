// Address derivation figures (issue 6): the one-off mnemonic → seed cost, then
// addresses per second for consecutive indexes of one account with the account
// node cached (the wallet-create path) and, for comparison, from the root.
// Called by bench/run.ts; also runnable alone: node --import tsx bench/derivation.ts
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalHdSigner } from '../src/adapters/signer/hd-signer.js';
import { depositPath } from '../src/domain/custody/derivation.js';
import type { BaseChain } from '../src/domain/money/networks.js';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const CACHED_COUNT = 5_000;
const UNCACHED_COUNT = 200;
const ACCOUNT = 1;

async function addressesPerSecond(signer: LocalHdSigner, chain: BaseChain, count: number): Promise<number> {
  await signer.deriveAddress(chain, depositPath(chain, ACCOUNT, 0)); // fills the account cache, warms the JIT
  const started = performance.now();
  for (let i = 1; i <= count; i++) await signer.deriveAddress(chain, depositPath(chain, ACCOUNT, i));
  return count / ((performance.now() - started) / 1000);
}

export async function benchDerivation(): Promise<void> {
  const seedStarted = performance.now();
  const cached = new LocalHdSigner(MNEMONIC);
  console.log(`HD signer: mnemonic → seed (PBKDF2, once per process): ${(performance.now() - seedStarted).toFixed(1)} ms`);
  const uncached = new LocalHdSigner(MNEMONIC, { accountCacheSize: 0 });
  for (const chain of ['ETH', 'TRON'] as const) {
    const warm = await addressesPerSecond(cached, chain, CACHED_COUNT);
    console.log(`HD derivation ${chain}: ${CACHED_COUNT} consecutive indexes, account node cached: ${warm.toFixed(0)} addresses/s`);
    const cold = await addressesPerSecond(uncached, chain, UNCACHED_COUNT);
    console.log(`HD derivation ${chain}: ${UNCACHED_COUNT} indexes, full path from the root: ${cold.toFixed(0)} addresses/s`);
  }
}

const entry = process.argv[1];
if (entry && resolve(entry) === fileURLToPath(import.meta.url)) await benchDerivation();
