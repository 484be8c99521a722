// POST /v2/wallets (docs/api.md#wallets): a new HD deposit address on the caller's
// network for one asset. The account and the gap-free index are allocated in
// the same transaction as the wallet, so concurrent creates never share or
// skip an index; the external_ref is stored only encrypted.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { depositPath } from '../../domain/custody/derivation.js';
import { DomainError } from '../../domain/errors.js';
import { isAssetOnChain, networkFor, type Asset, type BaseChain } from '../../domain/money/networks.js';
import type { Clock, NetworkRegistry, RandomSource, SecretCipher, SignerPort, UnitOfWork } from '../../domain/ports.js';
import type { Wallet } from '../../domain/wallets/wallet.js';
import { TOKENS } from '../tokens.js';

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
    @inject(TOKENS.Signer) private readonly signer: SignerPort,
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
      const wallet: Wallet = {
        id: this.random.uuid(),
        workspaceId: principal.workspaceId,
        network,
        asset: cmd.asset,
        address: await this.signer.deriveAddress(cmd.chain, depositPath(cmd.chain, account, index)),
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
