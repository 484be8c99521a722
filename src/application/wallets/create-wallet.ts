// POST /v2/wallets (docs/api.md#wallets): a new HD deposit address on the caller's
// network for one asset. The index comes from the account's pool of indexes
// taken ahead with their addresses (claimed without waiting on another
// create), else from the account's counter under its row lock; either way in
// the wallet's transaction, so concurrent creates never share or skip an
// index (ADR 0009). The external_ref is stored only encrypted. Addresses are
// derived publicly from the account's recorded xpub: the api holds no seed
// (ADR 0026).
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { depositPath } from '../../domain/custody/derivation.js';
import { DomainError } from '../../domain/errors.js';
import { isAssetOnChain, networkFor, type Asset, type BaseChain } from '../../domain/money/networks.js';
import type { Clock, NetworkRegistry, RandomSource, SecretCipher, UnitOfWork } from '../../domain/ports.js';
import type { AddressDeriver } from '../../domain/custody/ports.js';
import type { Wallet } from '../../domain/wallets/wallet.js';
import { TOKENS } from '../tokens.js';

/** What a client waits before retrying while the chain-worker records account keys (it does so within a second or two). */
const KEYS_RETRY_AFTER_SECONDS = 2;
/**
 * The pool is topped up to this many indexes. Unassigned indexes live only in the pool, so at most this many
 * stand unused in a row: under the BIP-44 gap limit of 20, a recovery that scans the account finds every wallet…
 */
export const POOL_TARGET = 16;
/** …once a create leaves fewer than this many. */
export const POOL_LOW = 8;

/** Thrown inside a refill to roll its indexes back when an address cannot be derived yet. */
class KeysNotReady extends Error {}

export interface CreateWalletCommand {
  chain: BaseChain;
  asset: Asset;
  externalRef: string | null;
  customerId: string | null;
}

@injectable()
export class CreateWallet {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.NetworkRegistry) private readonly networks: NetworkRegistry,
    @inject(TOKENS.AddressDeriver) private readonly addresses: AddressDeriver,
    @inject(TOKENS.SecretCipher) private readonly cipher: SecretCipher,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, cmd: CreateWalletCommand): Promise<Wallet> {
    requireScope(principal, 'wallets:write');
    if (!isAssetOnChain(cmd.chain, cmd.asset)) {
      throw new DomainError('VALIDATION_ERROR', `${cmd.asset} is not an asset of ${cmd.chain}`, [
        { path: 'asset', message: `not supported on ${cmd.chain}` },
      ]);
    }
    const network = networkFor(cmd.chain, principal.side);
    if (!(await this.networks.get(network)).enabled) {
      throw new DomainError('CHAIN_NOT_ENABLED', `${network} is not enabled for new wallets`);
    }
    return this.uow.run(async (tx) => {
      if (cmd.customerId !== null) {
        const customer = await tx.customers.get(principal.workspaceId, principal.side, cmd.customerId);
        if (!customer || customer.status !== 'ACTIVE') {
          throw new DomainError('VALIDATION_ERROR', 'customer_id must be an active customer of this workspace', [
            { path: 'customer_id', message: 'no active customer with this id' },
          ]);
        }
      }
      const account = await tx.derivation.account(principal.workspaceId, network);
      const pooled = await tx.derivation.claimPooled(account);
      const index = pooled?.index ?? (await tx.derivation.nextIndex(account));
      const address = pooled?.address ?? (await this.addresses.deriveAddress(cmd.chain, depositPath(cmd.chain, account, index)));
      if (address === null) {
        // The account's xpub is not recorded yet: the chain-worker was asked
        // for it, and this transaction (account, index) rolls back.
        throw new DomainError('SERVICE_UNAVAILABLE', `The keys of new ${cmd.chain} deposit accounts are being prepared; retry in a few seconds`, {
          retry_after_seconds: KEYS_RETRY_AFTER_SECONDS,
        });
      }
      // Index 0 is the first wallet of a new account, drawn from the pool of recorded xpubs: top it up early.
      if (index === 0 && (await this.addresses.poolLow(cmd.chain))) {
        await tx.jobs.enqueue('custody.refill-xpubs', { reason: 'pool-low' });
      }
      const wallet: Wallet = {
        id: this.random.uuid(),
        workspaceId: principal.workspaceId,
        network,
        asset: cmd.asset,
        address,
        derivationAccount: account,
        derivationIndex: index,
        status: 'ACTIVE',
        customerId: cmd.customerId,
        externalRefCiphertext: cmd.externalRef === null ? null : this.cipher.encrypt(cmd.externalRef),
        createdAt: this.clock.now(),
      };
      await tx.wallets.add(wallet);
      if ((pooled?.left ?? 0) < POOL_LOW) await this.refill(cmd.chain, account);
      return wallet;
    });
  }

  /**
   * Tops the account's pool up to POOL_TARGET: the indexes taken in one update of the account's row, each
   * address derived, all pooled, in a savepoint of the create's transaction. One refiller per account at a
   * time (the others go on); when an address cannot be derived yet, the savepoint rolls back and takes nothing.
   */
  private async refill(chain: BaseChain, account: number): Promise<void> {
    // An explicit savepoint: a run here would join the create's own savepoint, and a refill given up would then keep its indexes.
    await this.uow
      .savepoint(async (tx) => {
        if (!(await tx.derivation.tryLockPool(account))) return;
        const count = POOL_TARGET - (await tx.derivation.pooled(account));
        if (count <= 0) return;
        const first = await tx.derivation.nextIndexes(account, count);
        const entries: { index: number; address: string }[] = [];
        for (let index = first; index < first + count; index++) {
          const address = await this.addresses.deriveAddress(chain, depositPath(chain, account, index));
          if (address === null) throw new KeysNotReady();
          entries.push({ index, address });
        }
        await tx.derivation.pool(account, entries);
      })
      .catch((err: unknown) => {
        if (!(err instanceof KeysNotReady)) throw err;
      });
  }
}
