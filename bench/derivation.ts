// Address derivation figures (issues 6 and 18): the one-off mnemonic → seed
// cost, then addresses per second for consecutive indexes of one account with
// the account node cached (the wallet-create path) and from the root, each
// next to its baseline of the same run: the libraries alone doing the same
// work (raw @scure/bip32 child derivation from the same node, then viem's
// publicKeyToAddress of the uncompressed key), no signer around them.
// Called by bench/run.ts; also runnable alone: node --import tsx bench/derivation.ts
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { bytesToHex } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { LocalHdSigner } from '../src/adapters/signer/hd-signer.js';
import { depositPath } from '../src/domain/custody/derivation.js';
import type { BaseChain } from '../src/domain/money/networks.js';
import type { BenchRow } from './webhooks.js';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const CACHED_COUNT = 2_000;
const UNCACHED_COUNT = 200;
const ACCOUNT = 1;

async function addressesPerSecond(signer: LocalHdSigner, chain: BaseChain, count: number): Promise<number> {
  await signer.deriveAddress(chain, depositPath(chain, ACCOUNT, 0)); // fills the account cache, warms the JIT
  const started = performance.now();
  for (let i = 1; i <= count; i++) await signer.deriveAddress(chain, depositPath(chain, ACCOUNT, i));
  return count / ((performance.now() - started) / 1000);
}

/** The libraries alone: child `i` of a node, its uncompressed public key, keccak → address. */
function rawAddress(node: HDKey, i: number): string {
  const pub = node.deriveChild(i).publicKey!;
  return publicKeyToAddress(bytesToHex(secp256k1.Point.fromBytes(pub).toBytes(false)));
}

function rawPerSecond(count: number, one: (i: number) => string): number {
  one(0);
  const started = performance.now();
  for (let i = 1; i <= count; i++) one(i);
  return count / ((performance.now() - started) / 1000);
}

export async function benchDerivation(log: (line: string) => void = console.log): Promise<BenchRow[]> {
  const seedStarted = performance.now();
  const cached = new LocalHdSigner(MNEMONIC);
  log(`HD signer: mnemonic → seed (PBKDF2, once per process): ${(performance.now() - seedStarted).toFixed(1)} ms`);
  const uncached = new LocalHdSigner(MNEMONIC, { accountCacheSize: 0 });
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC));
  const rows: BenchRow[] = [];
  for (const chain of ['ETH', 'TRON'] as const) {
    const coin = chain === 'ETH' ? 60 : 195;
    const accountPath = `m/44'/${coin}'/${ACCOUNT}'/0`;
    const accountNode = root.derive(accountPath);
    const rawCached = rawPerSecond(CACHED_COUNT, (i) => rawAddress(accountNode, i));
    const warm = await addressesPerSecond(cached, chain, CACHED_COUNT);
    log(`HD derivation ${chain}: ${CACHED_COUNT} consecutive indexes, account node cached: ${warm.toFixed(0)} addresses/s (raw @scure/bip32 + viem: ${rawCached.toFixed(0)}/s)`);
    const rawRoot = rawPerSecond(UNCACHED_COUNT, (i) => rawAddress(root.derive(accountPath), i));
    const cold = await addressesPerSecond(uncached, chain, UNCACHED_COUNT);
    log(`HD derivation ${chain}: ${UNCACHED_COUNT} indexes, full path from the root: ${cold.toFixed(0)} addresses/s (raw: ${rawRoot.toFixed(0)}/s)`);
    rows.push(
      {
        name: `HD derivation ${chain}, account node cached (the wallet-create path): addresses per second`,
        value: Math.round(warm),
        unit: 'addresses/s',
        baseline: { name: 'raw @scure/bip32 deriveChild from the same cached node + viem publicKeyToAddress', value: Math.round(rawCached) },
        ratio: Number((warm / rawCached).toFixed(2)),
      },
      {
        name: `HD derivation ${chain}, full path from the root: addresses per second`,
        value: Math.round(cold),
        unit: 'addresses/s',
        baseline: { name: 'raw @scure/bip32 derive of the whole path from the root + viem publicKeyToAddress', value: Math.round(rawRoot) },
        ratio: Number((cold / rawRoot).toFixed(2)),
      },
    );
  }
  return rows;
}

const entry = process.argv[1];
if (entry && resolve(entry) === fileURLToPath(import.meta.url)) await benchDerivation();
