// POST /v2/wallets (docs/api.md#wallets): a new HD deposit address on the caller's
// network for one asset. The account and the gap-free index are allocated in
// the same transaction as the wallet, so concurrent creates never share or
// skip an index; the external_ref is stored only encrypted. The address is
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
      const index = await tx.derivation.nextIndex(account);
      const address = await this.addresses.deriveAddress(cmd.chain, depositPath(cmd.chain, account, index));
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
      return wallet;
    });
  }
}
